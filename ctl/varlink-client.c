/* SPDX-License-Identifier: GPL-2.0-or-later */
/* varlink-client.c — see varlink-client.h. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "escape.h"
#include "fsn-util.h"
#include "varlink-client.h"

#define VL_READ_MIN 4096

static size_t buf_max(const struct vl_buf *b) {
	return b->max ? b->max : VL_MAX_MESSAGE;
}

int vl_buf_space(struct vl_buf *b, char **ret, size_t *ret_room) {
	size_t pending, want, limit = buf_max(b) + 1; /* a message and its NUL */

	/* What was taken goes: the pending bytes move to the front. */
	if (b->off > 0) {
		memmove(b->data, b->data + b->off, b->len - b->off);
		b->len -= b->off;
		b->scan -= b->off;
		b->off = 0;
	}
	pending = b->len;
	if (pending >= limit)
		return -EMSGSIZE;
	if (b->cap - b->len < VL_READ_MIN && b->cap < limit) {
		char *p;

		want = b->cap ? b->cap * 2 : 2 * VL_READ_MIN;
		while (want - b->len < VL_READ_MIN)
			want *= 2;
		if (want > limit)
			want = limit;
		p = realloc(b->data, want);
		if (!p)
			return -ENOMEM;
		b->data = p;
		b->cap = want;
	}
	*ret = b->data + b->len;
	*ret_room = b->cap - b->len;
	return 0;
}

void vl_buf_added(struct vl_buf *b, size_t n) {
	b->len += n;
}

int vl_buf_next(struct vl_buf *b, const char **msg, size_t *len) {
	char *nul;

	if (b->scan < b->off)
		b->scan = b->off;
	nul = b->len > b->scan ? memchr(b->data + b->scan, '\0', b->len - b->scan) : NULL;
	if (!nul) {
		b->scan = b->len;
		return b->len - b->off > buf_max(b) ? -EMSGSIZE : 0;
	}
	if ((size_t)(nul - (b->data + b->off)) > buf_max(b))
		return -EMSGSIZE;
	*msg = b->data + b->off;
	*len = (size_t)(nul - (b->data + b->off));
	b->off = b->scan = (size_t)(nul - b->data) + 1;
	return 1;
}

int vl_buf_eof(const struct vl_buf *b) {
	return b->len > b->off ? -EBADMSG : 0;
}

void vl_buf_done(struct vl_buf *b) {
	free(b->data);
	*b = (struct vl_buf){ .max = b->max };
}

int vl_reply_parse(const char *msg, size_t len, struct vl_reply *ret) {
	struct vl_reply r = { 0 };
	const struct json *e, *c;
	int k;

	r.text = malloc(len + 1);
	if (!r.text)
		return -ENOMEM;
	memcpy(r.text, msg, len);
	r.text[len] = '\0';
	r.len = len;
	k = json_parse(r.text, len, &r.root, NULL);
	if (k < 0) {
		free(r.text);
		return k == -ENOMEM ? k : -EBADMSG;
	}
	r.parameters = json_get(r.root, "parameters");
	e = json_get(r.root, "error");
	c = json_get(r.root, "continues");
	if (r.root->type != JSON_OBJECT || (r.parameters && r.parameters->type != JSON_OBJECT) ||
	    (e && e->type != JSON_STRING) || (c && c->type != JSON_BOOL)) {
		vl_reply_done(&r);
		return -EBADMSG;
	}
	r.error = e ? e->string : NULL;
	r.continues = c && c->boolean;
	*ret = r;
	return 0;
}

void vl_reply_done(struct vl_reply *r) {
	json_free(r->root);
	free(r->text);
	*r = (struct vl_reply){ 0 };
}

const char *vl_reply_parameters_text(const struct vl_reply *r, size_t *n) {
	if (!r->parameters) {
		*n = 2;
		return "{}";
	}
	*n = r->parameters->end - r->parameters->start;
	return r->text + r->parameters->start;
}

const char *vl_reply_member_text(const struct vl_reply *r, const char *key, size_t *n) {
	const struct json *v = json_get(r->parameters, key);

	if (!v)
		return NULL;
	*n = v->end - v->start;
	return r->text + v->start;
}

int vl_connect(struct vl_conn *c, const char *path) {
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -1;

	*c = (struct vl_conn){ .fd = -1 };
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return negative_errno();
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return negative_errno();
	c->fd = steal_fd(&fd);
	return 0;
}

void vl_close(struct vl_conn *c) {
	c->fd = safe_close(c->fd);
	vl_buf_done(&c->in);
}

static int send_all(int fd, const char *p, size_t n) {
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return negative_errno();
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int vl_call(struct vl_conn *c, const char *method, const char *params, bool more) {
	_cleanup_free_ char *msg = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&msg, &n);

	if (!f)
		return -ENOMEM;
	fputs("{\"method\":", f);
	vl_write_string(f, method);
	fprintf(f, ",\"parameters\":%s%s}", params ? params : "{}", more ? ",\"more\":true" : "");
	fputc('\0', f);
	if (fclose(f) != 0 || !msg)
		return -ENOMEM;
	return send_all(c->fd, msg, n);
}

int vl_read(struct vl_conn *c, struct vl_reply *ret, const sigset_t *sigmask) {
	for (;;) {
		const char *msg;
		size_t len, room;
		char *p;
		ssize_t n;
		int r;

		r = vl_buf_next(&c->in, &msg, &len);
		if (r < 0)
			return r;
		if (r > 0)
			return vl_reply_parse(msg, len, ret);
		r = vl_buf_space(&c->in, &p, &room);
		if (r < 0)
			return r;
		if (sigmask) {
			struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

			if (ppoll(&pfd, 1, NULL, sigmask) < 0)
				return negative_errno();
		}
		n = read(c->fd, p, room);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return negative_errno();
		if (n == 0) /* closed: between messages, or in one */
			return vl_buf_eof(&c->in) < 0 ? -EBADMSG : -ECONNRESET;
		vl_buf_added(&c->in, (size_t)n);
	}
}

int vl_read_refusal(struct vl_conn *c, int r, struct vl_reply *ret) {
	if (r != -EPIPE && r != -ECONNRESET)
		return r;
	/* (what it sent before it closed is still there to read) */
	return vl_read(c, ret, NULL) == 0 ? 0 : r;
}

void vl_write_string(FILE *f, const char *s) {
	_cleanup_free_ char *buf = NULL;
	size_t need = 0, pos = 0;

	json_escape(NULL, 0, &need, s);
	buf = malloc(need + 1);
	if (!buf)
		return;
	json_escape(buf, need + 1, &pos, s);
	fputc('"', f);
	fputs(buf, f);
	fputc('"', f);
}
