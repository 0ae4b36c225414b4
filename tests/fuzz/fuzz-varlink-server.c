/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-varlink-server.c — the fuzz target of the control socket's server
 * (daemon/varlink.c: framing, the per-connection state machine, the
 * bounds), and its replay program.
 *
 * The real server runs on a loop of its own, its connections socketpairs
 * handed to it as accepted ones (vl_server_add()), behind a fake method
 * table: f.Get answers at once (n bytes), f.Defer waits for the script to
 * answer it, f.Watch (with "more") streams what the script says, f.Fail
 * answers an error, anything else MethodNotFound. An input is a script,
 * one operation a byte (its low 7 bits modulo the number of operations;
 * the high bit set: the loop does not run after it, so the next one
 * meets the server before it saw this one's effect, e.g. an answer to a
 * peer that hung up a moment ago) and its arguments the bytes after it
 * (0 once the input is over):
 *
 *   CONNECT s      a new peer (at most 6 at once); s odd: the server's
 *                  send buffer small (a peer that reads nothing fills it)
 *   RAW p n ...    peer p sends the next n bytes of the input as they are
 *                  (partial messages, NULs, garbage)
 *   CALL p k       peer p sends call k of a table (Get small and large,
 *                  Defer, Watch, Fail, oneway, unknown, GetInfo...)
 *   PIPELINE p n   peer p sends n + 1 f.Get calls in one write
 *   HANGUP p       peer p closes its end
 *   SHUT p         peer p shuts its writing down
 *   READ p n       peer p reads up to n × 512 bytes (0: all there is)
 *   LIMITS a b c   a reload: max_request 16 + 64a, max_queue 64 + 256b,
 *                  max_clients 1 + c % 8
 *   ANSWER i k     the i-th waiting call is answered: a reply, an error,
 *                  or (a Watch) a reply that continues
 *   STREAM n l     every Watch gets n messages of 16 + 8l bytes
 *   TURN           the loop runs once more
 *
 * After each operation (without the high bit) the loop runs until it has
 * nothing to do at once, and the checks are made.
 * Checked: every message a peer receives is a JSON object with an
 * "error" string or a "parameters" object, no longer than the longest
 * sent; a connection gets no call while one of it is in progress; the
 * server counts the connections the script added and not closed, and
 * keeps none whose peer hung up (also one with a call in progress); what
 * it queues stays below max_clients × (the largest max_queue set + the
 * largest message + an error); vl_server_free() closes every one. Timers
 * do not fire (their bounds are an hour: tests/unit/test-varlink.c covers
 * them). Under ASan (the replay in the sanitizer build, and libFuzzer)
 * nothing is read past a buffer or after it was freed, and nothing leaks.
 *
 * Built with -DFSN_LIBFUZZER it is a libFuzzer target (meson -Dfuzz=true,
 * CC=clang). Without it, it links replay.c:
 *
 *   fuzz-varlink-server-replay FILE|DIR...
 *
 * Seeds: varlink-server-corpus/, written by gen-varlink-server-corpus.py.
 */
#include <errno.h>
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fsn-util.h"
#include "json.h"
#include "log.h"
#include "replay.h"
#include "varlink.h"

#define MAX_PEERS 6
#define MAX_WAITING 16
#define MAX_ANSWER 8192  /* the largest f.Get answer's text */
#define ERROR_ROOM 256   /* a protocol error, a timeout, SubscriberTooSlow */
#define PEER_KEEP 262144 /* bytes of a peer's input kept to check (then cut) */

enum op { CONNECT, RAW, CALL, PIPELINE, HANGUP, SHUT, READ, LIMITS, ANSWER, STREAM, TURN, N_OPS };

/* A connection as the fake method table sees it (vl_conn_set_data()). */
struct fconn {
	bool busy, more;
};

struct peer {
	int fd;
	bool accepted; /* (not refused) */
	char *in;
	size_t len;
};

struct fz {
	const uint8_t *p, *end;
	struct ev_loop *loop;
	struct vl_server *srv;
	struct vl_limits lim;
	size_t max_queue_seen, max_message;
	struct peer peers[MAX_PEERS];
	struct vl_conn *waiting[MAX_WAITING]; /* calls the script answers */
	size_t n_waiting;
	unsigned added, closed;
	const char *bad; /* a check that failed in a callback */
	char *big;       /* MAX_ANSWER bytes of text */
};

static struct fz *fz;

static uint8_t next(void) {
	return fz->p < fz->end ? *fz->p++ : 0;
}

/* ---- the fake method table ---- */

static void forget(struct vl_conn *c) {
	for (size_t i = 0; i < fz->n_waiting; i++)
		if (fz->waiting[i] == c)
			fz->waiting[i--] = fz->waiting[--fz->n_waiting];
}

static void f_call(struct vl_conn *c, const struct vl_call *call, void *userdata) {
	struct fconn *f = vl_conn_get_data(c);
	const char *m = call->method;

	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f) {
			vl_error(c, "f.OutOfMemory", NULL);
			return;
		}
		vl_conn_set_data(c, f);
	}
	if (f->busy)
		fz->bad = "a second call while one is in progress";
	f->busy = true;
	f->more = call->more;
	if (strcmp(m, "f.Get") == 0) {
		double n = call->params ? json_get_number(call->params, "n", 0) : 0;
		size_t len = n > 0 && n < MAX_ANSWER ? (size_t)n : 0;
		char *text = malloc(len + 16);

		f->busy = false;
		if (!text) {
			vl_error(c, "f.OutOfMemory", NULL);
			return;
		}
		snprintf(text, len + 16, "{\"x\":\"%.*s\"}", (int)len, fz->big);
		vl_reply(c, text, false);
		free(text);
	} else if ((strcmp(m, "f.Defer") == 0 || (strcmp(m, "f.Watch") == 0 && call->more)) &&
		   fz->n_waiting < MAX_WAITING) {
		fz->waiting[fz->n_waiting++] = c;
	} else if (strcmp(m, "f.Watch") == 0 && !call->more) {
		f->busy = false;
		vl_error(c, "org.varlink.service.ExpectedMore", NULL);
	} else {
		f->busy = false;
		vl_error(
		    c, strcmp(m, "f.Fail") == 0 ? "f.Failed" : "org.varlink.service.MethodNotFound",
		    NULL);
	}
}

static void f_dropped(struct vl_conn *c, uint64_t n, void *userdata) {
	char msg[96];
	int len =
	    snprintf(msg, sizeof(msg), "{\"parameters\":{\"dropped\":%llu},\"continues\":true}",
		     (unsigned long long)n);

	(void)vl_stream_message(c, msg, (size_t)len);
}

static void f_closed(struct vl_conn *c, void *userdata) {
	struct fconn *f = vl_conn_get_data(c);

	fz->closed++;
	forget(c);
	free(f);
	vl_conn_set_data(c, NULL);
}

static const struct vl_ops f_ops = { .call = f_call, .dropped = f_dropped, .closed = f_closed };

/* ---- the peers ---- */

static struct peer *peer_of(uint8_t b) {
	struct peer *p = &fz->peers[b % MAX_PEERS];

	return p->fd >= 0 ? p : NULL;
}

/* Each whole message received is a reply or an error; the rest is kept. */
static int peer_check(struct peer *p) {
	size_t off = 0;

	for (char *nul; (nul = memchr(p->in + off, '\0', p->len - off));) {
		struct json *doc = NULL;
		const struct json *e, *par;
		size_t n = (size_t)(nul - (p->in + off));

		CHECK(n <= fz->max_message);
		CHECK(json_parse(p->in + off, n, &doc, NULL) == 0);
		e = json_get(doc, "error");
		par = json_get(doc, "parameters");
		CHECK(doc->type == JSON_OBJECT);
		CHECK(e ? e->type == JSON_STRING : par && par->type == JSON_OBJECT);
		json_free(doc);
		off += n + 1;
	}
	memmove(p->in, p->in + off, p->len - off);
	p->len -= off;
	return 0;
}

static int peer_read(struct peer *p, size_t max) {
	size_t got = 0;

	while (max == 0 || got < max) {
		size_t room = PEER_KEEP - p->len;
		ssize_t n;

		if (max && room > max - got)
			room = max - got;
		n = recv(p->fd, p->in + p->len, room, MSG_DONTWAIT);
		if (n <= 0)
			break;
		got += (size_t)n;
		p->len += (size_t)n;
		CHECK(peer_check(p) == 0);
		CHECK(p->len <= fz->max_message); /* (the rest: one message begun) */
	}
	return 0;
}

static void peer_send(struct peer *p, const void *data, size_t n) {
	/* (what the socket does not take is lost: the stream goes on cut,
	 * as a client's can) */
	(void)send(p->fd, data, n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void peer_close(struct peer *p) {
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	p->len = 0;
}

static int op_connect(void) {
	uint8_t s = next();
	int sv[2], small = 2048, r;

	for (int i = 0; i < MAX_PEERS; i++) {
		struct peer *p = &fz->peers[i];

		if (p->fd >= 0)
			continue;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
			return 0;
		if (s & 1)
			(void)setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
		r = vl_server_add(fz->srv, sv[1]);
		CHECK(r == 0 || r == -EUSERS);
		if (r == 0)
			fz->added++;
		p->fd = sv[0];
		p->accepted = r == 0;
		p->len = 0;
		return 0;
	}
	return 0;
}

static const char *const calls[] = {
	"{\"method\":\"f.Get\"}",
	"{\"method\":\"f.Get\",\"parameters\":{\"n\":7000}}",
	"{\"method\":\"f.Defer\",\"parameters\":{}}",
	"{\"method\":\"f.Watch\",\"more\":true}",
	"{\"method\":\"f.Watch\"}",
	"{\"method\":\"f.Fail\",\"parameters\":null}",
	"{\"method\":\"f.Get\",\"oneway\":true}",
	"{\"method\":\"f.Defer\",\"oneway\":true}",
	"{\"method\":\"org.varlink.service.GetInfo\"}",
	"{\"method\":\"f.Get\",\"more\":true,\"oneway\":true}",
	"{\"method\":\"nodot\"}",
	"[1,2]",
};

/* One operation; *turn: the loop is to run after it. */
static int op(bool *turn) {
	uint8_t b = next(), o = (b & 0x7f) % N_OPS, a;
	struct peer *p;

	*turn = !(b & 0x80);

	switch (o) {
	case CONNECT: return op_connect();
	case RAW: {
		uint8_t n;

		p = peer_of(next());
		n = next();
		if (n > fz->end - fz->p)
			n = (uint8_t)(fz->end - fz->p);
		if (p)
			peer_send(p, fz->p, n);
		fz->p += n;
		return 0;
	}
	case CALL:
		p = peer_of(next());
		a = next();
		if (p)
			peer_send(p, calls[a % ELEMENTSOF(calls)],
				  strlen(calls[a % ELEMENTSOF(calls)]) + 1);
		return 0;
	case PIPELINE: {
		static const char get[] = "{\"method\":\"f.Get\",\"parameters\":{\"n\":900}}";
		char buf[64 * sizeof(get)];
		unsigned n = next() % 64 + 1;

		p = peer_of(next());
		for (unsigned i = 0; i < n; i++)
			memcpy(buf + i * sizeof(get), get, sizeof(get));
		if (p)
			peer_send(p, buf, n * sizeof(get));
		return 0;
	}
	case HANGUP:
		p = peer_of(next());
		if (p)
			peer_close(p);
		return 0;
	case SHUT:
		p = peer_of(next());
		if (p)
			(void)shutdown(p->fd, SHUT_WR);
		return 0;
	case READ:
		p = peer_of(next());
		a = next();
		return p ? peer_read(p, (size_t)a * 512) : 0;
	case LIMITS:
		fz->lim.max_request = 16 + 64 * (size_t)next();
		fz->lim.max_queue = 64 + 256 * (size_t)next();
		fz->lim.max_clients = 1 + next() % 8;
		if (fz->lim.max_queue > fz->max_queue_seen)
			fz->max_queue_seen = fz->lim.max_queue;
		vl_server_set_limits(fz->srv, &fz->lim);
		return 0;
	case ANSWER: {
		struct vl_conn *c;
		struct fconn *f;

		a = next();
		o = next();
		if (fz->n_waiting == 0)
			return 0;
		c = fz->waiting[a % fz->n_waiting];
		f = vl_conn_get_data(c);
		CHECK(f && f->busy);
		if (f->more && o % 3 == 2) {
			(void)vl_reply(c, "{\"more\":1}", true);
			return 0;
		}
		forget(c);
		f->busy = false; /* (the answer may close c: f goes with it) */
		if (o % 3 == 1)
			(void)vl_error(c, "f.Failed", "{\"why\":\"the script\"}");
		else
			(void)vl_reply(c, NULL, false);
		return 0;
	}
	case STREAM: {
		unsigned n = next() % 32;
		size_t len = 16 + 8 * (size_t)next();
		char *msg = malloc(len + 64);

		if (!msg)
			return 0;
		len = (size_t)snprintf(msg, len + 64,
				       "{\"parameters\":{\"r\":\"%.*s\"},\"continues\":true}",
				       (int)len, fz->big);
		for (unsigned k = 0; k < n; k++)
			for (size_t i = 0; i < fz->n_waiting; i++) {
				struct fconn *f = vl_conn_get_data(fz->waiting[i]);

				if (f && f->more)
					(void)vl_stream_message(fz->waiting[i], msg, len);
			}
		free(msg);
		return 0;
	}
	default: ev_run(fz->loop, EVRUN_NOWAIT); return 0;
	}
}

/* The loop until a few turns change nothing the fake sees. */
static void settle(void) {
	for (unsigned quiet = 0, turns = 0; quiet < 3 && turns < 64; turns++) {
		unsigned closed = fz->closed;
		size_t waiting = fz->n_waiting;

		ev_run(fz->loop, EVRUN_NOWAIT);
		quiet = closed == fz->closed && waiting == fz->n_waiting ? quiet + 1 : 0;
	}
}

static int check_server(void) {
	struct vl_server_stats st;
	unsigned open = 0;

	if (fz->bad) {
		fprintf(stderr, "check failed: %s\n", fz->bad);
		return -1;
	}
	for (int i = 0; i < MAX_PEERS; i++)
		open += fz->peers[i].fd >= 0 && fz->peers[i].accepted;
	vl_server_get_stats(fz->srv, &st);
	CHECK(st.clients == fz->added - fz->closed);
	/* (a peer that hung up has no connection left, whatever it was doing) */
	CHECK(st.clients <= open);
	CHECK(st.queued <= (size_t)st.clients * (fz->max_queue_seen + 2 * fz->max_message));
	return 0;
}

int fuzz_one(const uint8_t *data, size_t size) {
	struct fz f = {
		.p = data,
		.end = data + size,
		.lim = { .max_clients = 4,
			 .max_request = 4096,
			 .max_queue = 16384,
			 .slow_sec = 3600,
			 .request_sec = 3600,
			 .idle_sec = 3600 },
		.max_queue_seen = 16384,
		/* f.Get's answer, a stream message, with their envelopes */
		.max_message = MAX_ANSWER + 16 + 8 * 255 + 64 + ERROR_ROOM,
	};
	char err[128];
	int r = 0;

	log_set_level(LOG_CRIT);
	fz = &f;
	for (int i = 0; i < MAX_PEERS; i++)
		f.peers[i].fd = -1;
	f.big = malloc(MAX_ANSWER + 8 * 256);
	f.loop = ev_loop_new(EVFLAG_AUTO);
	CHECK(f.big && f.loop);
	memset(f.big, 'b', MAX_ANSWER + 8 * 256);
	for (int i = 0; i < MAX_PEERS; i++) {
		f.peers[i].in = malloc(PEER_KEEP);
		CHECK(f.peers[i].in);
	}
	CHECK(vl_server_new(f.loop, NULL, getegid(), &f.lim, &f_ops, NULL, &f.srv, err,
			    sizeof(err)) == 0);
	while (r == 0 && f.p < f.end) {
		bool turn;

		r = op(&turn);
		if (!turn)
			continue;
		settle();
		if (r == 0)
			r = check_server();
	}
	if (r == 0) {
		settle();
		r = f.bad ? -1 : check_server();
	}
	/* what is left to read is checked too; then everything goes */
	for (int i = 0; r == 0 && i < MAX_PEERS; i++)
		if (f.peers[i].fd >= 0)
			r = peer_read(&f.peers[i], 0);
	f.srv = vl_server_free(f.srv);
	if (r == 0 && f.closed != f.added) {
		fprintf(stderr, "check failed: %u connections, %u closed\n", f.added, f.closed);
		r = -1;
	}
	for (int i = 0; i < MAX_PEERS; i++) {
		peer_close(&f.peers[i]);
		free(f.peers[i].in);
	}
	ev_loop_destroy(f.loop);
	free(f.big);
	fz = NULL;
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (fuzz_one(data, size) < 0)
		abort();
	return 0;
}
