/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * varlink.c — the varlink server (varlink.h).
 *
 * Input: bytes are read into a connection's buffer (at most
 * limits.max_request + 1 bytes without a NUL: more closes it with
 * org.varlink.service.InvalidParameter, also when the limit was lowered
 * while a message was coming) and cut at NUL bytes; a message is parsed
 * (vl_parse_call()) and handed to ops.call while no other call of that
 * connection waits for its answer and its output queue is below
 * limits.max_queue; otherwise it stays buffered and reading stops until
 * the answer went out, or the queue was written below the bound.
 *
 * A connection that is not read (a call in progress, its answers not
 * taken, closing) is in the server's hang-up epoll (no events asked: the
 * kernel's EPOLLHUP alone, a peer that closed, not one that only shut its
 * writing down): it is closed as soon as its peer goes, its slot free.
 * One that is read has a timer: a message begun must end within
 * limits.request_sec (io.fsnotifyd.RequestTimeout), and nothing read or
 * written for limits.idle_sec closes it (io.fsnotifyd.IdleTimeout). The
 * last of limits.max_clients slots is root's.
 *
 * Output: messages are appended to the connection's buffer and written
 * without blocking (send(MSG_NOSIGNAL | MSG_DONTWAIT)); what the socket
 * does not take waits for an ev_io. Answers are never dropped (a status of
 * many marks can be large), but a connection whose queue holds
 * limits.max_queue bytes is not read, so its queue stays below that plus
 * one answer; streamed messages are bounded by limits.max_queue: beyond it
 * they are dropped and counted, ops.dropped() is told once the queue is
 * below half of it. A subscriber whose queue stayed full, or a client
 * whose answers stayed over the bound, for limits.slow_sec gets
 * everything after the message being written thrown away,
 * io.fsnotifyd.SubscriberTooSlow appended, and the connection closes once
 * that is written (or CLOSE_GRACE s later).
 *
 * A connection is freed by the last of those who hold it (in_use: the
 * callbacks running on it, and vl_reply() / vl_error() /
 * vl_stream_message(), whose write may find the peer gone).
 */
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "json.h"
#include "jbuf.h"
#include "log.h"
#include "util.h"
#include "varlink.h"

#define MAX_LOGGED_UIDS 64
#define STREAM_BATCH 65536 /* bytes of streamed messages gathered before a send() */
#define CLOSE_GRACE 30.0   /* s a closing connection gets to take its last words */
#define TOO_LONG "{\"parameter\":\"message longer than control.max_request\"}"

struct vl_conn {
	struct vl_server *srv;
	struct vl_conn *prev, *next;
	int fd;
	uid_t uid;
	pid_t pid;
	ev_io rio, wio;
	ev_timer grace;
	ev_timer timer; /* limits.request_sec and idle_sec, while it is read */
	char *in;
	size_t in_len, in_cap;
	char *out;
	size_t out_off, out_len, out_cap;
	bool busy;        /* a call waits for its final answer */
	bool more;        /* ... and may be streamed to */
	bool oneway;      /* ... and wants no answer */
	bool closing;     /* close once the output is written */
	bool blocked;     /* the socket refused more (EAGAIN) until the ev_io fires */
	bool dead;        /* closed; freed by the one who holds it (in_use) */
	bool hup_watched; /* in the server's hang-up epoll */
	unsigned in_use;  /* callbacks and calls running on it */
	uint64_t dropped;
	ev_tstamp full_since;    /* its queue full (stream: first refused message), 0: not */
	ev_tstamp last_active;   /* a byte read or written, or a call over */
	ev_tstamp partial_since; /* the buffered part of a message began, 0: none */
	void *data;
};

struct vl_server {
	struct ev_loop *loop;
	int fd; /* the listening socket, -1: none */
	char *path;
	gid_t gid;
	struct vl_limits lim;
	struct vl_ops ops;
	void *userdata;
	ev_io lio;
	int hup_fd; /* epoll of the connections not read, for their hang-up */
	ev_io hio;
	ev_timer slow_timer;
	struct vl_conn *conns;
	unsigned n_conns;
	uid_t logged[MAX_LOGGED_UIDS];
	unsigned n_logged;
	bool full_logged;
	struct vl_server_stats stats;
};

/* ------------------------------------------------------------------------ */
/* connections                                                              */
/* ------------------------------------------------------------------------ */

static void conn_free(struct vl_conn *c) {
	free(c->in);
	free(c->out);
	free(c);
}

/* After a callback or call: free a connection it closed. */
static void conn_put(struct vl_conn *c) {
	if (--c->in_use == 0 && c->dead)
		conn_free(c);
}

/* In the hang-up epoll (on) or not. Without room there (ENOMEM, the
 * epoll watch limit) the hang-up is seen when the connection is read again. */
static void hup_watch(struct vl_conn *c, bool on) {
	struct epoll_event ev = { .events = 0, .data.ptr = c };

	if (on == c->hup_watched)
		return;
	if (epoll_ctl(c->srv->hup_fd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, c->fd, &ev) == 0 || !on)
		c->hup_watched = on;
}

static void conn_close(struct vl_conn *c) {
	struct vl_server *s = c->srv;

	if (c->dead)
		return;
	c->dead = true;
	ev_io_stop(s->loop, &c->rio);
	ev_io_stop(s->loop, &c->wio);
	ev_timer_stop(s->loop, &c->grace);
	ev_timer_stop(s->loop, &c->timer);
	hup_watch(c, false);
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->n_conns--;
	safe_close(c->fd);
	c->fd = -1;
	c->in_use++;
	if (s->ops.closed)
		s->ops.closed(c, s->userdata);
	conn_put(c);
}

static size_t queued(const struct vl_conn *c) {
	return c->out_len - c->out_off;
}

/* Its next message may be read and handed out. */
static bool conn_reads(const struct vl_conn *c) {
	return !c->dead && !c->closing && !c->busy && queued(c) < c->srv->lim.max_queue;
}

/* When it is closed for being idle or slow to send a message; 0: never
 * (not read: a call in progress, or closing, or its answers wait to be
 * written, which limits.slow_sec bounds). */
static ev_tstamp conn_deadline(const struct vl_conn *c, bool *request) {
	const struct vl_limits *l = &c->srv->lim;
	ev_tstamp due = 0;

	*request = false;
	if (!ev_is_active(&c->rio))
		return 0;
	if (l->idle_sec > 0)
		due = c->last_active + l->idle_sec;
	if (l->request_sec > 0 && c->in_len > 0 && c->partial_since > 0 &&
	    (due == 0 || c->partial_since + l->request_sec < due)) {
		due = c->partial_since + l->request_sec;
		*request = true;
	}
	return due;
}

/* The timer at the deadline, when that is earlier than where it is (a
 * later one is found when it fires: no heap update for every read). */
static void conn_arm_timer(struct vl_conn *c) {
	struct ev_loop *loop = c->srv->loop;
	ev_tstamp now = ev_now(loop), due;
	bool request;

	due = conn_deadline(c, &request);
	if (due == 0) {
		ev_timer_stop(loop, &c->timer);
		return;
	}
	if (ev_is_active(&c->timer) && now + ev_timer_remaining(loop, &c->timer) <= due)
		return;
	ev_timer_stop(loop, &c->timer);
	ev_timer_set(&c->timer, due > now ? due - now : 0., 0.);
	ev_timer_start(loop, &c->timer);
}

/* After its state changed: read it or watch for its hang-up, its answers
 * over the bound timed as a slow subscriber's queue, its timer. */
static void conn_update(struct vl_conn *c) {
	struct vl_server *s = c->srv;
	bool reads = conn_reads(c);

	if (c->dead)
		return;
	if (reads && !ev_is_active(&c->rio)) {
		hup_watch(c, false);
		ev_io_start(s->loop, &c->rio);
		/* (what waited buffered gets its time anew, and is handed out) */
		c->partial_since = c->in_len > 0 ? ev_now(s->loop) : 0;
		if (c->in_len > 0)
			ev_feed_event(s->loop, &c->rio, EV_READ);
	} else if (!reads) {
		ev_io_stop(s->loop, &c->rio);
		hup_watch(c, true);
	}
	if (!c->busy && !c->closing) {
		if (reads)
			c->full_since = 0;
		else if (c->full_since == 0)
			c->full_since = ev_now(s->loop);
		if (!reads && !ev_is_active(&s->slow_timer))
			ev_timer_again(s->loop, &s->slow_timer);
	}
	conn_arm_timer(c);
}

/* Write what the socket takes. 0, or -errno (closed). */
static int conn_flush(struct vl_conn *c) {
	struct vl_server *s = c->srv;

	while (queued(c) > 0) {
		ssize_t n =
		    send(c->fd, c->out + c->out_off, queued(c), MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			c->blocked = true; /* (until the ev_io says it takes more) */
			ev_io_start(s->loop, &c->wio);
			return 0;
		}
		if (n <= 0) {
			conn_close(c);
			return -EPIPE;
		}
		c->out_off += (size_t)n;
		c->last_active = ev_now(s->loop);
	}
	c->out_off = c->out_len = 0;
	ev_io_stop(s->loop, &c->wio);
	if (c->closing)
		conn_close(c);
	return 0;
}

/* Append one message (text and its NUL). */
static int conn_append(struct vl_conn *c, const char *text, size_t n) {
	if (c->out_off > 0 && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if (c->out_len + n + 1 > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		char *p;

		/* (reclaim what was written first) */
		if (c->out_off > 0) {
			memmove(c->out, c->out + c->out_off, queued(c));
			c->out_len -= c->out_off;
			c->out_off = 0;
		}
		while (cap < c->out_len + n + 1)
			cap *= 2;
		if (cap != c->out_cap) {
			p = realloc(c->out, cap);
			if (!p)
				return -ENOMEM;
			c->out = p;
			c->out_cap = cap;
		}
	}
	memcpy(c->out + c->out_len, text, n);
	c->out[c->out_len + n] = '\0';
	c->out_len += n + 1;
	return 0;
}

/* {"parameters":P[,"continues":true]} or {"error":E,"parameters":P} */
static int conn_send(struct vl_conn *c, const char *error, const char *params, bool continues) {
	struct jbuf b = { 0 };
	bool was_empty = queued(c) == 0;
	int r;

	if (c->dead)
		return -EPIPE;
	jb_puts(&b, "{");
	if (error) {
		jb_key(&b, "error", true);
		jb_str(&b, error);
	}
	jb_key(&b, "parameters", !error);
	jb_puts(&b, params ? params : "{}");
	if (continues)
		jb_puts(&b, ",\"continues\":true");
	jb_puts(&b, "}");
	if (b.oom) {
		jb_free(&b);
		conn_close(c);
		return -ENOMEM;
	}
	r = conn_append(c, b.s, b.len);
	jb_free(&b);
	if (r < 0) {
		conn_close(c);
		return r;
	}
	/* (behind a backlog the ev_io writes it; otherwise now) */
	return was_empty ? conn_flush(c) : 0;
}

/* A reply outside a call (protocol errors, timeouts, too slow), then
 * close. */
static void conn_fail(struct vl_conn *c, const char *error, const char *params) {
	c->in_use++;
	c->closing = true;
	conn_update(c);
	if (conn_send(c, error, params, false) == 0 && !c->dead && queued(c) == 0)
		conn_close(c);
	if (!c->dead)
		ev_timer_start(c->srv->loop, &c->grace);
	conn_put(c);
}

static void call_over(struct vl_conn *c) {
	c->busy = c->more = c->oneway = false;
	c->dropped = 0;
	c->full_since = 0;
	c->last_active = ev_now(c->srv->loop);
	conn_update(c);
}

/* The final answer of the call in progress (error NULL: a reply). */
static int conn_answer(struct vl_conn *c, const char *error, const char *params, bool continues) {
	int r = 0;

	if (c->dead || c->closing || !c->busy)
		return -EPIPE;
	if (continues && (!c->more || error))
		return -EINVAL;
	c->in_use++; /* (the peer may be gone: the write closes c) */
	if (!c->oneway)
		r = conn_send(c, error, params, continues);
	if (!continues && !c->dead)
		call_over(c);
	if (c->dead && r == 0)
		r = -EPIPE;
	conn_put(c);
	return r;
}

int vl_reply(struct vl_conn *c, const char *params, bool continues) {
	return conn_answer(c, NULL, params, continues);
}

int vl_error(struct vl_conn *c, const char *name, const char *params) {
	return conn_answer(c, name, params, false);
}

int vl_stream_message(struct vl_conn *c, const char *msg, size_t len) {
	struct vl_server *s = c->srv;
	int r;

	if (c->dead || c->closing || !c->busy || !c->more)
		return -EPIPE;
	/* (once dropping, until the queue is below half and the subscriber
	 * was told: nothing after a loss may arrive before word of it) */
	if (c->dropped > 0 || queued(c) + len + 1 > s->lim.max_queue) {
		c->dropped++;
		s->stats.dropped++;
		if (c->full_since == 0)
			c->full_since = ev_now(s->loop);
		if (!ev_is_active(&s->slow_timer))
			ev_timer_again(s->loop, &s->slow_timer);
		return -ENOBUFS;
	}
	r = conn_append(c, msg, len);
	if (r < 0) {
		c->in_use++;
		conn_close(c);
		conn_put(c);
		return r;
	}
	/* written when the loop comes round (the ev_io): a burst of records
	 * goes out in one send() per subscriber, not one per record; but a
	 * burst as long as a loop turn (thousands of records) would fill a
	 * queue a fast reader keeps empty: beyond STREAM_BATCH bytes, now */
	if (queued(c) >= STREAM_BATCH && !c->blocked) {
		c->in_use++;
		r = conn_flush(c);
		conn_put(c);
		return r;
	}
	ev_io_start(s->loop, &c->wio);
	return 0;
}

/* Hand out the buffered messages while it takes calls. */
static void conn_process(struct vl_conn *c) {
	struct vl_server *s = c->srv;
	size_t off = 0;

	c->in_use++;
	while (conn_reads(c) && off < c->in_len) {
		char *nul = memchr(c->in + off, '\0', c->in_len - off);
		struct vl_call call;
		const char *why;
		int r;

		if (!nul)
			break;
		/* (one buffered before control.max_request was lowered) */
		if ((size_t)(nul - (c->in + off)) > s->lim.max_request) {
			conn_fail(c, "org.varlink.service.InvalidParameter", TOO_LONG);
			break;
		}
		r = vl_parse_call(c->in + off, (size_t)(nul - (c->in + off)), &call, &why);
		off = (size_t)(nul - c->in) + 1;
		if (r < 0) {
			struct jbuf b = { 0 };

			jb_puts(&b, "{\"parameter\":");
			jb_str(&b, r == -ENOMEM ? "out of memory" : why);
			jb_puts(&b, "}");
			conn_fail(c, "org.varlink.service.InvalidParameter", b.oom ? NULL : b.s);
			jb_free(&b);
			break;
		}
		c->busy = true;
		c->more = call.more;
		c->oneway = call.oneway;
		s->ops.call(c, &call, s->userdata);
		vl_call_done(&call);
	}
	if (!c->dead && off > 0) {
		memmove(c->in, c->in + off, c->in_len - off);
		c->in_len -= off;
		/* (the rest, if any, is the start of the next message) */
		c->partial_since = c->in_len > 0 ? ev_now(s->loop) : 0;
	}
	conn_put(c);
}

/* Room for max bytes (a message and its NUL), no more: a lowered
 * control.max_request gives memory back. 0 or -ENOMEM. */
static int conn_input_room(struct vl_conn *c, size_t max) {
	char *p;

	if (c->in_cap == max)
		return 0;
	p = realloc(c->in, max);
	if (!p)
		return c->in_cap > max ? 0 : -ENOMEM;
	c->in = p;
	c->in_cap = max;
	return 0;
}

static void on_read(struct ev_loop *loop, ev_io *w, int revents) {
	struct vl_conn *c = w->data;
	struct vl_server *s = c->srv;
	size_t max = s->lim.max_request + 1;

	c->in_use++;
	conn_process(c); /* (what waited for an answer, or for room) */
	while (conn_reads(c)) {
		ssize_t n;

		/* (a message begun before control.max_request was lowered may
		 * be beyond it already) */
		if (c->in_len >= max) {
			conn_fail(c, "org.varlink.service.InvalidParameter", TOO_LONG);
			break;
		}
		if (conn_input_room(c, max) < 0) {
			conn_close(c);
			break;
		}
		n = recv(c->fd, c->in + c->in_len, max - c->in_len, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) { /* hung up (or an error): nothing more to answer */
			conn_close(c);
			break;
		}
		if (c->in_len == 0)
			c->partial_since = ev_now(loop);
		c->in_len += (size_t)n;
		c->last_active = ev_now(loop);
		conn_process(c);
	}
	conn_update(c);
	conn_put(c);
}

static void on_write(struct ev_loop *loop, ev_io *w, int revents) {
	struct vl_conn *c = w->data;
	struct vl_server *s = c->srv;

	c->in_use++;
	c->blocked = false;
	if (conn_flush(c) == 0 && !c->dead && c->dropped > 0 && c->more &&
	    queued(c) < s->lim.max_queue / 2) {
		uint64_t n = c->dropped;

		/* it caught up: tell it what it missed */
		c->dropped = 0;
		c->full_since = 0;
		if (s->ops.dropped)
			s->ops.dropped(c, n, s->userdata);
	}
	conn_update(c); /* (answers below the bound: its next calls are read) */
	conn_put(c);
}

static void on_grace(struct ev_loop *loop, ev_timer *w, int revents) {
	conn_close(w->data);
}

/* A request that took too long to arrive, or a connection idle too long. */
static void on_timer(struct ev_loop *loop, ev_timer *w, int revents) {
	struct vl_conn *c = w->data;
	struct vl_server *s = c->srv;
	char params[32];
	bool request;
	ev_tstamp due = conn_deadline(c, &request);

	if (due == 0)
		return;
	if (due > ev_now(loop)) { /* (it was busy meanwhile) */
		conn_arm_timer(c);
		return;
	}
	s->stats.timed_out++;
	snprintf(params, sizeof(params), "{\"seconds\":%u}",
		 request ? s->lim.request_sec : s->lim.idle_sec);
	log_debug("control: pid %d uid %u %s for %u s: disconnected", (int)c->pid, (unsigned)c->uid,
		  request ? "sent part of a message" : "was idle",
		  request ? s->lim.request_sec : s->lim.idle_sec);
	conn_fail(c, request ? "io.fsnotifyd.RequestTimeout" : "io.fsnotifyd.IdleTimeout", params);
}

/* Connections whose peer hung up while they were not read. */
static void on_hup(struct ev_loop *loop, ev_io *w, int revents) {
	struct vl_server *s = w->data;
	struct epoll_event evs[16];
	int n;

	do {
		n = epoll_wait(s->hup_fd, evs, (int)ELEMENTSOF(evs), 0);
		/* (its call goes on without it: nothing can reach it) */
		for (int i = 0; i < n; i++)
			conn_close(evs[i].data.ptr);
	} while (n == (int)ELEMENTSOF(evs));
}

/* Is its queue full: a subscriber's at half (or it lost messages not told
 * yet), a client's answers at the bound (it is not read)? */
static bool conn_full(const struct vl_conn *c) {
	size_t max = c->srv->lim.max_queue;

	if (c->busy)
		return queued(c) >= max / 2 || c->dropped > 0;
	return queued(c) >= max;
}

/* Cut a full connection off: keep the message being written, drop what
 * waits behind it (counted with the rest it lost), then SubscriberTooSlow. */
static void conn_too_slow(struct vl_conn *c) {
	struct vl_server *s = c->srv;
	char *nul = c->out_off < c->out_len ? memchr(c->out + c->out_off, '\0', queued(c)) : NULL;
	char params[96];

	if (nul) {
		for (const char *q = nul + 1; q < c->out + c->out_len; q++)
			if (*q == '\0') {
				c->dropped++;
				s->stats.dropped += c->more;
			}
		c->out_len = (size_t)(nul - c->out) + 1;
	}
	log_warning("control: %s pid %d uid %u read nothing for %u s; %llu %s dropped: "
		    "disconnected",
		    c->more ? "subscriber" : "client", (int)c->pid, (unsigned)c->uid,
		    s->lim.slow_sec, (unsigned long long)c->dropped,
		    c->more ? "records" : "answers");
	snprintf(params, sizeof(params), "{\"dropped\":%llu,\"seconds\":%u}",
		 (unsigned long long)c->dropped, s->lim.slow_sec);
	s->stats.disconnected_slow++;
	c->more = false;
	conn_fail(c, "io.fsnotifyd.SubscriberTooSlow", params);
}

/* Every second while some queue is full: disconnect who stayed full. */
static void on_slow(struct ev_loop *loop, ev_timer *w, int revents) {
	struct vl_server *s = w->data;
	ev_tstamp now = ev_now(loop);
	bool any = false;

	for (struct vl_conn *c = s->conns, *next; c; c = next) {
		next = c->next;
		if (c->full_since == 0 || c->closing)
			continue;
		if (!conn_full(c)) {
			c->full_since = 0;
			continue;
		}
		if (now - c->full_since < s->lim.slow_sec) {
			any = true;
			continue;
		}
		conn_too_slow(c);
	}
	if (!any)
		ev_timer_stop(loop, w);
}

/* ------------------------------------------------------------------------ */
/* accepting                                                                */
/* ------------------------------------------------------------------------ */

static bool uid_logged(struct vl_server *s, uid_t uid) {
	for (unsigned i = 0; i < s->n_logged; i++)
		if (s->logged[i] == uid)
			return true;
	if (s->n_logged < MAX_LOGGED_UIDS)
		s->logged[s->n_logged++] = uid;
	return false;
}

/* root, or the socket's group among the peer's groups at connect */
static bool peer_allowed(const struct vl_server *s, int fd, const struct ucred *uc) {
	gid_t groups[256];
	socklen_t len = sizeof(groups);

	if (uc->uid == 0)
		return true;
	if (s->gid == 0)
		return false;
	if (uc->gid == s->gid)
		return true;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
		return false;
	for (size_t i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == s->gid)
			return true;
	return false;
}

/* Say no on a fresh socket (its buffer takes one small message) and close. */
static void refuse(int fd, const char *error, const char *params) {
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "{\"error\":\"%s\",\"parameters\":%s}", error, params);

	if (n > 0 && (size_t)n < sizeof(msg))
		(void)send(fd, msg, (size_t)n + 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

int vl_server_add(struct vl_server *s, int fd) {
	struct ucred uc = { 0 };
	socklen_t len = sizeof(uc);
	struct vl_conn *c;
	char params[64];
	unsigned max;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0) {
		int r = negative_errno();

		close(fd);
		return r;
	}
	if (!peer_allowed(s, fd, &uc)) {
		s->stats.refused++;
		if (!uid_logged(s, uc.uid))
			log_warning("control: refused uid %u (pid %d): only root%s may connect "
				    "(control.group); further refusals of this uid are not logged",
				    (unsigned)uc.uid, (int)uc.pid,
				    s->gid ? " and members of the control group" : "");
		snprintf(params, sizeof(params), "{\"uid\":%u}", (unsigned)uc.uid);
		refuse(fd, "io.fsnotifyd.PermissionDenied", params);
		return -EPERM;
	}
	/* the last slot is root's: the connections of a group member (or
	 * ones it left behind) never lock root out */
	max = uc.uid == 0 || s->lim.max_clients == 0 ? s->lim.max_clients : s->lim.max_clients - 1;
	if (s->n_conns >= max) {
		s->stats.refused++;
		if (!s->full_logged)
			log_warning("control: %u connections (control.max_clients, the last one "
				    "root's): refusing more",
				    s->n_conns);
		s->full_logged = true;
		snprintf(params, sizeof(params), "{\"max\":%u}", max);
		refuse(fd, "io.fsnotifyd.TooManyClients", params);
		return -EUSERS;
	}
	s->full_logged = false;
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	c->srv = s;
	c->fd = fd;
	c->uid = uc.uid;
	c->pid = uc.pid;
	c->last_active = ev_now(s->loop);
	ev_io_init(&c->rio, on_read, fd, EV_READ);
	ev_io_init(&c->wio, on_write, fd, EV_WRITE);
	ev_timer_init(&c->grace, on_grace, CLOSE_GRACE, 0);
	ev_init(&c->timer, on_timer);
	c->rio.data = c->wio.data = c->grace.data = c->timer.data = c;
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	s->n_conns++;
	s->stats.accepted++;
	conn_update(c);
	return 0;
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents) {
	struct vl_server *s = w->data;

	for (int i = 0; i < 16; i++) {
		int fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				log_warning("control: accept: %s", strerror(errno));
			return;
		}
		(void)vl_server_add(s, fd); /* (refused: counted, and logged once) */
	}
}

/* ------------------------------------------------------------------------ */
/* the socket                                                               */
/* ------------------------------------------------------------------------ */

/* Is something listening on path? */
static bool socket_alive(const char *path) {
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || strlen(path) >= sizeof(sa.sun_path))
		return false;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	return connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
}

/* The listening socket on path (vl_server_new()): its fd, or -errno with
 * err saying what failed. */
static int listen_on(const char *path, gid_t gid, char *err, size_t errlen) {
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_free_ char *dir = NULL;
	const char *name, *slash = strrchr(path, '/');
	_cleanup_close_ int dfd = -1, fd = -1;
	struct stat st;
	char via[64];
	mode_t old;
	gid_t fsgid;
	int r;

	if (!slash || !slash[1] || strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "not an absolute socket path");
		return -EINVAL;
	}
	name = slash + 1;
	dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (!dir)
		return -ENOMEM;
	/* its directory: root's, writable by nobody else, never a symlink */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* (not made by systemd's RuntimeDirectory=: made here, one level) */
	if (dfd < 0 && errno == ENOENT && mkdir(dir, 0755) == 0)
		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0) {
		r = -errno;
		snprintf(err, errlen, "its directory: %s", strerror(-r));
		return r;
	}
	if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, errlen,
			 "its directory is not root's alone (owner %u, mode %04o): another user "
			 "could replace the socket",
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "it exists and is not a socket");
			return -EEXIST;
		}
		if (socket_alive(path)) {
			snprintf(err, errlen,
				 "another process answers on it (a second fsnotifyd?)");
			return -EADDRINUSE;
		}
		(void)unlinkat(dfd, name, 0); /* stale */
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* bound through the directory fd (no path walk an attacker could
	 * redirect), 0600 until it has its group */
	snprintf(via, sizeof(via), "/proc/self/fd/%d/", dfd);
	if (strlen(via) + strlen(name) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "name too long");
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, via, strlen(via));
	memcpy(sa.sun_path + strlen(via), name, strlen(name) + 1);
	/* the socket gets its group as it is made: the file system gid of the
	 * bind() (CAP_SETGID; chown would need CAP_CHOWN, which the daemon
	 * does not keep) */
	old = umask(0177);
	fsgid = (gid_t)setfsgid(gid);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -errno : 0;
	(void)setfsgid(fsgid);
	umask(old);
	if (r == 0 && (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_gid != gid)) {
		snprintf(err, errlen, "cannot give it group %u (CAP_SETGID is needed)",
			 (unsigned)gid);
		(void)unlinkat(dfd, name, 0);
		return -EPERM;
	}
	if (r == 0 && fchmodat(dfd, name, gid ? 0660 : 0600, 0) < 0)
		r = -errno;
	if (r == 0 && listen(fd, 64) < 0)
		r = -errno;
	if (r < 0) {
		snprintf(err, errlen, "%s", strerror(-r));
		(void)unlinkat(dfd, name, 0);
		return r;
	}
	return steal_fd(&fd);
}

int vl_server_new(struct ev_loop *loop, const char *path, gid_t gid, const struct vl_limits *lim,
		  const struct vl_ops *ops, void *userdata, struct vl_server **ret, char *err,
		  size_t errlen) {
	struct vl_server *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->fd = -1;
	s->hup_fd = epoll_create1(EPOLL_CLOEXEC);
	if (s->hup_fd < 0 || (path && !(s->path = strdup(path)))) {
		r = s->hup_fd < 0 ? negative_errno() : -ENOMEM;
		snprintf(err, errlen, "%s", strerror(-r));
		goto fail;
	}
	if (path) {
		s->fd = listen_on(path, gid, err, errlen);
		if (s->fd < 0) {
			r = s->fd;
			goto fail;
		}
		ev_io_init(&s->lio, on_accept, s->fd, EV_READ);
		s->lio.data = s;
		ev_io_start(loop, &s->lio);
	}
	s->loop = loop;
	s->gid = gid;
	s->lim = *lim;
	s->ops = *ops;
	s->userdata = userdata;
	ev_io_init(&s->hio, on_hup, s->hup_fd, EV_READ);
	s->hio.data = s;
	ev_io_start(loop, &s->hio);
	ev_timer_init(&s->slow_timer, on_slow, 0, 1.0);
	s->slow_timer.data = s;
	*ret = s;
	return 0;
fail:
	safe_close(s->hup_fd);
	free(s->path);
	free(s);
	return r;
}

struct vl_server *vl_server_free(struct vl_server *s) {
	if (!s)
		return NULL;
	while (s->conns)
		conn_close(s->conns);
	if (s->fd >= 0) {
		ev_io_stop(s->loop, &s->lio);
		safe_close(s->fd);
		(void)unlink(s->path);
	}
	ev_io_stop(s->loop, &s->hio);
	safe_close(s->hup_fd);
	ev_timer_stop(s->loop, &s->slow_timer);
	free(s->path);
	free(s);
	return NULL;
}

void vl_server_set_limits(struct vl_server *s, const struct vl_limits *lim) {
	s->lim = *lim;
	for (struct vl_conn *c = s->conns; c; c = c->next) {
		conn_update(c); /* (read or not by the new max_queue; new timeouts) */
		/* (a message begun beyond a lowered max_request is refused now) */
		if (ev_is_active(&c->rio) && c->in_len > s->lim.max_request)
			ev_feed_event(s->loop, &c->rio, EV_READ);
	}
}

const char *vl_server_path(const struct vl_server *s) {
	return s->path;
}

gid_t vl_server_gid(const struct vl_server *s) {
	return s->gid;
}

void vl_server_get_stats(const struct vl_server *s, struct vl_server_stats *ret) {
	*ret = s->stats;
	ret->clients = s->n_conns;
	ret->queued = 0;
	for (const struct vl_conn *c = s->conns; c; c = c->next)
		ret->queued += queued(c);
}

void vl_conn_set_data(struct vl_conn *c, void *data) {
	c->data = data;
}

void *vl_conn_get_data(const struct vl_conn *c) {
	return c->data;
}

uid_t vl_conn_uid(const struct vl_conn *c) {
	return c->uid;
}

pid_t vl_conn_pid(const struct vl_conn *c) {
	return c->pid;
}
