/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * varlink-client.h — the client side of varlink (https://varlink.org) as
 * fsnotifyctl speaks it to fsnotifyd's control socket (varlink-client.c): each
 * message one JSON object followed by a NUL byte, on a unix stream socket.
 * The framing (struct vl_buf) and the reply parser are pure, for the unit
 * tests; struct vl_conn adds the socket.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "json.h"

/* The longest message the client accepts (a GetStatus of 100 000 marks is
 * some 20 MiB). */
#define VL_MAX_MESSAGE (64u * 1024 * 1024)

/* Bytes read, cut at NUL bytes into messages. A partial read is normal:
 * a message may come in pieces, and one read may hold several. Zeroed is
 * empty, with the limit VL_MAX_MESSAGE. */
struct vl_buf {
	char *data;
	size_t cap;
	size_t off;  /* where the first message not yet taken starts */
	size_t len;  /* bytes held, from data[0] (data[off..len) pending) */
	size_t scan; /* data[off..scan) holds no NUL */
	size_t max;  /* 0: VL_MAX_MESSAGE */
};

/* Room to read into, at least 4 KiB or what the limit leaves: the buffer
 * grows (doubling) while a message is longer than it. 0, -ENOMEM, or
 * -EMSGSIZE when the pending message already has max bytes and no end. */
int vl_buf_space(struct vl_buf *b, char **ret, size_t *ret_room);
/* n bytes were read into the room vl_buf_space() gave. */
void vl_buf_added(struct vl_buf *b, size_t n);
/* The next whole message: 1 with *msg (NUL terminated, in the buffer, valid
 * until the next vl_buf_space()) and its length without the NUL; 0 when no
 * whole message is held; -EMSGSIZE when the pending bytes exceed max
 * without a NUL. */
int vl_buf_next(struct vl_buf *b, const char **msg, size_t *len);
/* At end of stream: 0 when nothing is pending, -EBADMSG when a message
 * without its NUL is left (a truncated message is never taken). */
int vl_buf_eof(const struct vl_buf *b);
void vl_buf_done(struct vl_buf *b);

/* A reply: {"parameters": {...}, "continues": true} or {"error": NAME,
 * "parameters": {...}}. */
struct vl_reply {
	char *text; /* the message (owned; the DOM's start/end index it) */
	size_t len;
	struct json *root;
	const struct json *parameters; /* NULL when absent */
	const char *error;             /* NULL: not an error */
	bool continues;
};

/* Parse one message. 0, -ENOMEM, or -EBADMSG (not JSON, not an object, or
 * "error" / "parameters" / "continues" of the wrong type). */
int vl_reply_parse(const char *msg, size_t len, struct vl_reply *ret);
void vl_reply_done(struct vl_reply *r);
/* The parameters exactly as received ("{}" when absent), n bytes. */
const char *vl_reply_parameters_text(const struct vl_reply *r, size_t *n);
/* A member of the parameters as received, or NULL. */
const char *vl_reply_member_text(const struct vl_reply *r, const char *key, size_t *n);

struct vl_conn {
	int fd;
	struct vl_buf in;
};

/* Connect to a unix socket path. 0 or -errno (-ENAMETOOLONG for a path
 * longer than sun_path). */
int vl_connect(struct vl_conn *c, const char *path);
void vl_close(struct vl_conn *c);
/* Send {"method": method, "parameters": params, "more": true?}; params is
 * a JSON object's text (NULL: {}). 0 or -errno. */
int vl_call(struct vl_conn *c, const char *method, const char *params, bool more);
/* vl_call() failed with r: when the server closed the connection first
 * (-EPIPE, -ECONNRESET), what it said before, e.g. why it refused this
 * client (TooManyClients, PermissionDenied): 0 with *ret; otherwise r. */
int vl_read_refusal(struct vl_conn *c, int r, struct vl_reply *ret);
/* Read the next reply. 0; -ECONNRESET when the peer closed (between
 * messages); -EBADMSG when it closed in a message, or sent one that is not
 * a reply; -EMSGSIZE; -EINTR when a signal not in
 * sigmask (ppoll(2)) arrived first; -errno. sigmask NULL: the current. */
int vl_read(struct vl_conn *c, struct vl_reply *ret, const sigset_t *sigmask);

/* Append s as a JSON string (quotes included) to f: valid UTF-8 kept, the
 * rest escaped as the daemon's JSON output does (json_escape()). */
void vl_write_string(FILE *f, const char *s);
