/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-varlink.c — the "varlink" suite: the control socket's server
 * (daemon/varlink.c) driven in this process, on its own loop, over
 * socketpairs handed to it as accepted connections (vl_server_add()),
 * with a fake method table: a request cut short by a lowered
 * max_request, answers a client never reads (bounded, then
 * SubscriberTooSlow), an answer to a client that hung up, a hang-up while
 * a call is in progress, the request and idle timeouts, and the slot kept
 * for root. Every wait is for a state of the server or of the client's
 * socket, with a deadline; nothing sleeps.
 */
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "json.h"
#include "unit.h"
#include "varlink.h"

#define WAIT_SEC 10.0 /* the bound of one wait: a broken server, not a slow machine */

struct fake {
	struct ev_loop *loop;
	struct vl_server *srv;
	struct vl_limits lim;
	char *answer; /* what t.Get answers ({"x":"..."}) */
	unsigned calls, closed;
	struct vl_conn *pending; /* a t.Defer call waiting for its answer */
};

/* What the client end of a connection got. */
struct peer {
	int fd;
	char *buf;
	size_t len, cap;
	bool eof;
};

static void fake_call(struct vl_conn *c, const struct vl_call *call, void *userdata) {
	struct fake *f = userdata;

	f->calls++;
	if (strcmp(call->method, "t.Defer") == 0)
		f->pending = c;
	else
		vl_reply(c, f->answer, false);
}

static void fake_closed(struct vl_conn *c, void *userdata) {
	struct fake *f = userdata;

	f->closed++;
	if (f->pending == c)
		f->pending = NULL;
}

static const struct vl_ops fake_ops = { .call = fake_call, .closed = fake_closed };

static void fake_init(struct fake *f, size_t answer_len) {
	char err[128];

	*f = (struct fake){
		.loop = ev_loop_new(EVFLAG_AUTO),
		.lim = { .max_clients = 8,
			 .max_request = 65536,
			 .max_queue = 65536,
			 .slow_sec = 3600,
			 .request_sec = 3600,
			 .idle_sec = 3600 },
	};
	ck_assert_ptr_nonnull(f->loop);
	f->answer = malloc(answer_len + 9);
	ck_assert_ptr_nonnull(f->answer);
	memcpy(f->answer, "{\"x\":\"", 6);
	memset(f->answer + 6, 'a', answer_len);
	strcpy(f->answer + 6 + answer_len, "\"}");
	ck_assert_int_eq(vl_server_new(f->loop, NULL, getegid(), &f->lim, &fake_ops, f, &f->srv,
				       err, sizeof(err)),
			 0);
}

static void fake_done(struct fake *f) {
	f->srv = vl_server_free(f->srv);
	ev_loop_destroy(f->loop);
	free(f->answer);
}

static void set_limits(struct fake *f) {
	vl_server_set_limits(f->srv, &f->lim);
}

/* A new connection: the server gets one end, the test keeps the other.
 * sndbuf > 0: the server's send buffer (so "the client reads nothing"
 * fills it soon). vl_server_add()'s result in *added. */
static struct peer peer_new(struct fake *f, int sndbuf, int *added) {
	struct peer p = { .fd = -1 };
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
	if (sndbuf > 0)
		ck_assert_int_eq(setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)),
				 0);
	p.fd = sv[0];
	*added = vl_server_add(f->srv, sv[1]);
	return p;
}

static struct peer peer_connect(struct fake *f, int sndbuf) {
	int r;
	struct peer p = peer_new(f, sndbuf, &r);

	ck_assert_int_eq(r, 0);
	return p;
}

static void peer_done(struct peer *p) {
	if (p->fd >= 0)
		close(p->fd);
	free(p->buf);
	*p = (struct peer){ .fd = -1 };
}

/* Send what the socket takes of data; the count. */
static size_t peer_send(struct peer *p, const char *data, size_t n) {
	size_t done = 0;

	while (done < n) {
		ssize_t k = send(p->fd, data + done, n - done, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		done += (size_t)k;
	}
	return done;
}

static void peer_send_all(struct peer *p, const char *data, size_t n) {
	ck_assert_uint_eq(peer_send(p, data, n), n);
}

/* Read what is there (not blocking). */
static void peer_read(struct peer *p) {
	for (;;) {
		ssize_t k;

		if (p->cap - p->len < 65536) {
			p->cap = p->cap ? 2 * p->cap : 131072;
			p->buf = realloc(p->buf, p->cap);
			ck_assert_ptr_nonnull(p->buf);
		}
		k = recv(p->fd, p->buf + p->len, p->cap - p->len, MSG_DONTWAIT);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			return;
		if (k <= 0) {
			p->eof = true;
			return;
		}
		p->len += (size_t)k;
	}
}

/* Whole messages received. */
static size_t peer_messages(const struct peer *p) {
	size_t n = 0;

	for (size_t i = 0; i < p->len; i++)
		n += p->buf[i] == '\0';
	return n;
}

/* The last whole message's "error", or "" when it has none (static). */
static const char *peer_last_error(const struct peer *p) {
	static char name[128];
	const char *end = p->len ? memrchr(p->buf, '\0', p->len) : NULL, *start;
	struct json *doc = NULL;
	const char *e;

	ck_assert_msg(end, "no message received");
	start = memrchr(p->buf, '\0', (size_t)(end - p->buf));
	start = start ? start + 1 : p->buf;
	ck_assert_int_eq(json_parse(start, (size_t)(end - start), &doc, NULL), 0);
	e = json_get_string(doc, "error");
	snprintf(name, sizeof(name), "%s", e ? e : "");
	json_free(doc);
	return name;
}

/* Bytes sent on p not yet read by the server. */
static int peer_unread(const struct peer *p) {
	int n = 0;

	ck_assert_int_eq(ioctl(p->fd, SIOCOUTQ, &n), 0);
	return n;
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents) {
}

/* Run the loop until cond holds (it may read the peer's socket: a loop
 * turn at least every 10 ms); fails after WAIT_SEC. */
#define run_until(f, cond)                                                                         \
	do {                                                                                       \
		ev_tstamp deadline_ = ev_time() + WAIT_SEC;                                        \
		ev_timer tick_;                                                                    \
                                                                                                   \
		ev_timer_init(&tick_, on_tick, 0.01, 0.01);                                        \
		ev_timer_start((f)->loop, &tick_);                                                 \
		while (!(cond)) {                                                                  \
			ck_assert_msg(ev_time() < deadline_, "timed out waiting for: %s", #cond);  \
			ev_run((f)->loop, EVRUN_ONCE);                                             \
		}                                                                                  \
		ev_timer_stop((f)->loop, &tick_);                                                  \
	} while (0)

/* Run the loop until nothing is left for it to do at once. */
static void run_idle(struct fake *f) {
	for (unsigned quiet = 0; quiet < 20;) {
		unsigned calls = f->calls, closed = f->closed;

		ev_run(f->loop, EVRUN_NOWAIT);
		quiet = calls == f->calls && closed == f->closed ? quiet + 1 : 0;
	}
}

static struct vl_server_stats server_stats(struct fake *f) {
	struct vl_server_stats st;

	vl_server_get_stats(f->srv, &st);
	return st;
}

/* A request of 60 000 bytes is coming when a reload lowers max_request to
 * 1024; the rest arrives: refused as too long, and nothing written past the
 * buffer (the old code's recv() length wrapped round: a heap overflow). */
START_TEST(test_max_request_lowered) {
	static const char head[] = "{\"method\":\"t.Get\",\"parameters\":{\"x\":\"";
	struct fake f;
	struct peer p;
	char *body = malloc(200000);

	ck_assert_ptr_nonnull(body);
	memset(body, 'a', 200000);
	fake_init(&f, 10);
	p = peer_connect(&f, 0);
	peer_send_all(&p, head, sizeof(head) - 1);
	peer_send_all(&p, body, 60000);
	run_until(&f, peer_unread(&p) == 0);
	f.lim.max_request = 1024;
	set_limits(&f);
	(void)peer_send(&p, body, 200000);
	run_until(&f, f.closed == 1);
	run_until(&f, (peer_read(&p), p.eof));
	ck_assert_str_eq(peer_last_error(&p), "org.varlink.service.InvalidParameter");
	ck_assert(memmem(p.buf, p.len, "longer than control.max_request", 31));
	ck_assert_uint_eq(f.calls, 0);
	/* a complete message under the new limit still works */
	peer_done(&p);
	p = peer_connect(&f, 0);
	peer_send_all(&p, "{\"method\":\"t.Get\"}", 19);
	run_until(&f, (peer_read(&p), peer_messages(&p) == 1));
	ck_assert_str_eq(peer_last_error(&p), "");
	peer_done(&p);
	fake_done(&f);
	free(body);
}
END_TEST

/* A pipelined message longer than a lowered max_request, buffered while a
 * call was in progress, is refused when its turn comes. */
START_TEST(test_max_request_lowered_buffered) {
	static const char defer[] = "{\"method\":\"t.Defer\"}";
	char msg[3000];
	struct fake f;
	struct peer p;

	fake_init(&f, 10);
	p = peer_connect(&f, 0);
	memset(msg, ' ', sizeof(msg));
	msg[sizeof(msg) - 1] = '\0';
	/* (in one write: the server reads both before the call is made) */
	memcpy(msg, defer, sizeof(defer));
	memcpy(msg + sizeof(defer), "{\"method\":\"t.Get\"}", 18);
	peer_send_all(&p, msg, sizeof(msg));
	run_until(&f, f.pending != NULL);
	ck_assert_int_eq(peer_unread(&p), 0);
	f.lim.max_request = 1024;
	set_limits(&f);
	vl_reply(f.pending, NULL, false);
	run_until(&f, f.closed == 1);
	ck_assert_uint_eq(f.calls, 1);
	peer_read(&p);
	ck_assert_str_eq(peer_last_error(&p), "org.varlink.service.InvalidParameter");
	peer_done(&p);
	fake_done(&f);
}
END_TEST

/* A client that pipelines calls and reads nothing: the server stops
 * reading its calls once max_queue bytes of answers wait (the old code
 * answered every one: 2000 × 4 KiB queued); when it reads, every call is
 * answered, in order. */
START_TEST(test_unread_answers_bounded) {
	static const char call[] = "{\"method\":\"t.Get\"}";
	const size_t n = 2000, answer = 4096;
	char *calls = malloc(n * sizeof(call));
	struct fake f;
	struct peer p;
	size_t bound;

	ck_assert_ptr_nonnull(calls);
	for (size_t i = 0; i < n; i++)
		memcpy(calls + i * sizeof(call), call, sizeof(call));
	fake_init(&f, answer);
	p = peer_connect(&f, 4096);
	peer_send_all(&p, calls, n * sizeof(call));
	run_idle(&f);
	/* the queue, one answer beyond it, what the socket buffers took */
	bound = f.lim.max_queue + answer + 64 + 65536;
	ck_assert_msg(f.calls * (answer + 16) <= bound,
		      "%u calls answered (%zu bytes) while nothing was read: bound %zu", f.calls,
		      f.calls * (answer + 16), bound);
	ck_assert_uint_le(server_stats(&f).queued, f.lim.max_queue + answer + 64);
	ck_assert_uint_eq(f.closed, 0);
	/* it reads: everything is answered, in order */
	run_until(&f, (peer_read(&p), peer_messages(&p) == n));
	ck_assert_uint_eq(f.calls, n);
	ck_assert_str_eq(peer_last_error(&p), "");
	peer_done(&p);
	fake_done(&f);
	free(calls);
}
END_TEST

/* ... and one whose answers stay over the bound for slow_sec is cut off
 * with SubscriberTooSlow (after the answer being written). */
START_TEST(test_unread_answers_too_slow) {
	static const char call[] = "{\"method\":\"t.Get\"}";
	struct fake f;
	struct peer p;

	fake_init(&f, 4096);
	f.lim.slow_sec = 1;
	set_limits(&f);
	p = peer_connect(&f, 4096);
	for (int i = 0; i < 200; i++)
		peer_send_all(&p, call, sizeof(call));
	run_until(&f, server_stats(&f).disconnected_slow == 1);
	ck_assert_uint_lt(f.calls, 200);
	run_until(&f, (peer_read(&p), p.eof));
	ck_assert_uint_eq(f.closed, 1);
	ck_assert_str_eq(peer_last_error(&p), "io.fsnotifyd.SubscriberTooSlow");
	peer_done(&p);
	fake_done(&f);
}
END_TEST

/* A call answered after its client hung up, before the loop saw it: the
 * answer fails, the connection is closed once (the old code went on using
 * it after freeing it: ASan heap-use-after-free in vl_reply / vl_error). */
START_TEST(test_answer_after_hangup) {
	static const char defer[] = "{\"method\":\"t.Defer\"}";

	for (int error = 0; error < 2; error++) {
		struct fake f;
		struct peer p;
		int r;

		fake_init(&f, 10);
		p = peer_connect(&f, 0);
		peer_send_all(&p, defer, sizeof(defer));
		run_until(&f, f.pending != NULL);
		peer_done(&p);
		r = error ? vl_error(f.pending, "t.Failed", NULL)
			  : vl_reply(f.pending, NULL, false);
		ck_assert_int_lt(r, 0);
		ck_assert_uint_eq(f.closed, 1);
		ck_assert_ptr_null(f.pending);
		run_idle(&f);
		ck_assert_uint_eq(f.closed, 1);
		fake_done(&f);
	}
}
END_TEST

/* A client that hangs up while its call is in progress (a Reload, a
 * Watch) is closed then, its slot free (the old code did not read it
 * while the call lasted, so never saw the hang-up). One that only shut
 * its writing down still gets its answer. */
START_TEST(test_hangup_while_busy) {
	static const char defer[] = "{\"method\":\"t.Defer\"}";
	struct fake f;
	struct peer p;

	fake_init(&f, 10);
	p = peer_connect(&f, 0);
	peer_send_all(&p, defer, sizeof(defer));
	run_until(&f, f.pending != NULL);
	peer_done(&p);
	run_until(&f, f.closed == 1);
	ck_assert_ptr_null(f.pending);

	p = peer_connect(&f, 0);
	peer_send_all(&p, defer, sizeof(defer));
	run_until(&f, f.pending != NULL);
	ck_assert_int_eq(shutdown(p.fd, SHUT_WR), 0);
	run_idle(&f);
	ck_assert_ptr_nonnull(f.pending);
	ck_assert_int_eq(vl_reply(f.pending, NULL, false), 0);
	run_until(&f, (peer_read(&p), p.eof));
	ck_assert_uint_eq(peer_messages(&p), 1);
	ck_assert_str_eq(peer_last_error(&p), "");
	peer_done(&p);
	fake_done(&f);
}
END_TEST

/* A request begun and not ended within request_sec closes the connection
 * with RequestTimeout; one with no call for idle_sec with IdleTimeout,
 * while one whose call is in progress (made at the same time) stays. */
START_TEST(test_timeouts) {
	static const char defer[] = "{\"method\":\"t.Defer\"}";
	struct fake f;
	struct peer part, idle, busy;

	fake_init(&f, 10);
	f.lim.request_sec = 1;
	f.lim.idle_sec = 2;
	set_limits(&f);
	part = peer_connect(&f, 0);
	idle = peer_connect(&f, 0);
	busy = peer_connect(&f, 0);
	peer_send_all(&busy, defer, sizeof(defer));
	peer_send_all(&part, "{\"method\":", 10);
	run_until(&f, f.pending != NULL);
	run_until(&f, (peer_read(&part), part.eof));
	ck_assert_str_eq(peer_last_error(&part), "io.fsnotifyd.RequestTimeout");
	ck_assert(memmem(part.buf, part.len, "\"seconds\":1", 11));
	ck_assert_uint_eq(f.closed, 1);
	run_until(&f, (peer_read(&idle), idle.eof));
	ck_assert_str_eq(peer_last_error(&idle), "io.fsnotifyd.IdleTimeout");
	ck_assert(memmem(idle.buf, idle.len, "\"seconds\":2", 11));
	ck_assert_uint_eq(f.closed, 2);
	ck_assert_ptr_nonnull(f.pending);
	peer_read(&busy);
	ck_assert(!busy.eof && busy.len == 0);
	/* its call over, it is idle from then on (a shorter idle_sec: the
	 * new limits apply at once) */
	f.lim.idle_sec = 1;
	set_limits(&f);
	ck_assert_int_eq(vl_reply(f.pending, NULL, false), 0);
	run_until(&f, (peer_read(&busy), busy.eof));
	ck_assert_str_eq(peer_last_error(&busy), "io.fsnotifyd.IdleTimeout");
	peer_done(&part);
	peer_done(&idle);
	peer_done(&busy);
	fake_done(&f);
}
END_TEST

/* A connection made with the effective ids uid:gid (root: switched there
 * and back, so SO_PEERCRED says so). */
static struct peer peer_as(struct fake *f, uid_t uid, gid_t gid, int *added) {
	struct peer p;

	ck_assert_int_eq(setegid(gid), 0);
	ck_assert_int_eq(seteuid(uid), 0);
	{
		int sv[2];

		ck_assert_int_eq(
		    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
		ck_assert_int_eq(seteuid(0), 0);
		ck_assert_int_eq(setegid(0), 0);
		p = (struct peer){ .fd = sv[0] };
		*added = vl_server_add(f->srv, sv[1]);
	}
	return p;
}

/* The last of max_clients slots is root's: a group member holding the
 * others is refused with TooManyClients (max: max_clients − 1), root
 * still gets in (the old code gave the member every slot). */
START_TEST(test_slot_for_root) {
	const uid_t user = 65534;
	struct fake f;
	struct peer a, b, root, again;
	char err[64];
	int r;

	if (geteuid() != 0)
		fsn_test_skip("needs root (connections made as another uid)");
	fake_init(&f, 10);
	f.srv = vl_server_free(f.srv);
	f.lim.max_clients = 2;
	ck_assert_int_eq(
	    vl_server_new(f.loop, NULL, user, &f.lim, &fake_ops, &f, &f.srv, err, sizeof(err)), 0);
	a = peer_as(&f, user, user, &r);
	ck_assert_int_eq(r, 0);
	b = peer_as(&f, user, user, &r);
	ck_assert_int_eq(r, -EUSERS);
	peer_read(&b);
	ck_assert_str_eq(peer_last_error(&b), "io.fsnotifyd.TooManyClients");
	ck_assert(memmem(b.buf, b.len, "\"max\":1", 7));
	root = peer_as(&f, 0, 0, &r);
	ck_assert_int_eq(r, 0);
	again = peer_as(&f, 0, 0, &r);
	ck_assert_int_eq(r, -EUSERS);
	peer_done(&a);
	peer_done(&b);
	peer_done(&root);
	peer_done(&again);
	fake_done(&f);
}
END_TEST

static void varlink_suite(Suite *s) {
	TCase *tc = tcase_create("varlink");

	tcase_add_test(tc, test_max_request_lowered);
	tcase_add_test(tc, test_max_request_lowered_buffered);
	tcase_add_test(tc, test_unread_answers_bounded);
	tcase_add_test(tc, test_unread_answers_too_slow);
	tcase_add_test(tc, test_answer_after_hangup);
	tcase_add_test(tc, test_hangup_while_busy);
	tcase_add_test(tc, test_timeouts);
	tcase_add_test(tc, test_slot_for_root);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("varlink", varlink_suite);
