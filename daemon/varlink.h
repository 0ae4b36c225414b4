/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * varlink.h — a small varlink server on the daemon's loop (varlink.c): a
 * unix stream socket, messages framed by a NUL byte, one call at a time per
 * connection, answered in order; peers checked at accept (SO_PEERCRED:
 * root, or a member of one group; the last connection slot is root's);
 * every connection bounded: its request (max_request bytes, arriving whole
 * within request_sec), its output (a subscriber that falls behind loses
 * streamed messages, counted; a client that does not read its answers is
 * read no more; either, full for slow_sec, is disconnected with a reason),
 * its idleness (idle_sec without a call) and its life (a peer that hung up
 * is closed, also while its call is in progress). What the calls mean is
 * the caller's (control.c): it gets each parsed call and answers with
 * vl_reply() / vl_error(), now or later.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ev_loop;
struct json;
struct vl_server;
struct vl_conn;

/* One call, parsed from one message. */
struct vl_call {
	struct json *doc; /* owns method and params */
	const char *method;
	const struct json *params; /* an object; NULL when the call has none */
	bool more;                 /* "more": true: the caller wants a stream */
	bool oneway;               /* "oneway": true: no reply */
};

/* Parse one message (its bytes without the NUL). 0, or -EINVAL with *why
 * set (not an object, no method, parameters not an object...), -ENOMEM.
 * Pure: the fuzz target's entry point. */
int vl_parse_call(const char *msg, size_t len, struct vl_call *ret, const char **why);
void vl_call_done(struct vl_call *c);

struct vl_limits {
	unsigned max_clients; /* connections at once (the last one root's) */
	size_t max_request;   /* bytes of one message */
	size_t max_queue;     /* bytes queued per connection: streamed messages
			       * beyond it are dropped; at or over it the
			       * connection's next calls are not read */
	unsigned slow_sec;    /* a full queue for this long: disconnected */
	unsigned request_sec; /* a message begun must end within this; 0: no bound */
	unsigned idle_sec;    /* no call in progress, nothing read or written
			       * for this long: disconnected; 0: never */
};

struct vl_ops {
	/* A call (already validated as a message; the method is the
	 * callee's to check). The connection takes no other call until it
	 * was answered with a final vl_reply() / vl_error(). */
	void (*call)(struct vl_conn *c, const struct vl_call *call, void *userdata);
	/* Streamed messages were dropped and the queue has room again: the
	 * place to stream a record saying how many (n). */
	void (*dropped)(struct vl_conn *c, uint64_t n, void *userdata);
	/* The connection goes away (its data is the callee's to free). */
	void (*closed)(struct vl_conn *c, void *userdata);
};

/*
 * Listen on path: its directory must exist, belong to root and be
 * writable by nobody else; a stale socket there is replaced, a live one
 * (another daemon answers) is an error. The socket is made mode 0660,
 * owner root, group gid (made so through the file system gid: needs
 * CAP_SETGID), or 0600 for gid 0 (only root may connect then). 0, or
 * -errno with err saying what failed. path NULL: no socket (connections
 * come through vl_server_add(): the unit tests and the fuzz target).
 */
int vl_server_new(struct ev_loop *loop, const char *path, gid_t gid, const struct vl_limits *lim,
		  const struct vl_ops *ops, void *userdata, struct vl_server **ret, char *err,
		  size_t errlen);
/* Close every connection (they get nothing more) and the socket, and
 * remove it. */
struct vl_server *vl_server_free(struct vl_server *s);
/* A connected unix stream socket (SOCK_NONBLOCK | SOCK_CLOEXEC), taken as
 * if accepted: its peer checked, counted against max_clients. 0; or the
 * peer was refused (-EPERM not allowed, -EUSERS too many connections: the
 * reason sent), -ENOMEM, -errno; fd is the server's in every case. */
int vl_server_add(struct vl_server *s, int fd);
/* New limits, for every connection at once (a request already buffered
 * beyond a lowered max_request is refused as one that arrives so). */
void vl_server_set_limits(struct vl_server *s, const struct vl_limits *lim);
const char *vl_server_path(const struct vl_server *s);
gid_t vl_server_gid(const struct vl_server *s);

struct vl_server_stats {
	unsigned clients;
	uint64_t accepted, refused, disconnected_slow, dropped;
	uint64_t timed_out; /* closed by request_sec or idle_sec */
	size_t queued;      /* bytes waiting to be written now, all connections */
};
void vl_server_get_stats(const struct vl_server *s, struct vl_server_stats *ret);

/* Answer the call in progress: params is the text of a JSON object (NULL:
 * {}); continues: more replies follow (only for a "more" call). Nothing
 * is sent for a oneway call. 0, or -errno: the connection is closed
 * (vl_ops.closed() was called; outside a vl_ops callback c is gone). */
int vl_reply(struct vl_conn *c, const char *params, bool continues);
/* Answer with an error: name "io.fsnotifyd.X", params as for vl_reply(). */
int vl_error(struct vl_conn *c, const char *name, const char *params);
/* Stream one reply (continues) of the call in progress, the whole message
 * made by the caller ({"parameters":...,"continues":true}, len bytes
 * without the NUL: one text for every subscriber of a record), bounded:
 * -ENOBUFS when the queue holds limits.max_queue bytes (the message is
 * dropped and counted; vl_ops.dropped() says how many once there is
 * room). Written when the loop next comes round, so a burst goes out in
 * one send(). -EPIPE and other -errno as vl_reply(). */
int vl_stream_message(struct vl_conn *c, const char *msg, size_t len);

void vl_conn_set_data(struct vl_conn *c, void *data);
void *vl_conn_get_data(const struct vl_conn *c);
uid_t vl_conn_uid(const struct vl_conn *c);
pid_t vl_conn_pid(const struct vl_conn *c);
