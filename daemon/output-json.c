/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output-json.c — the json output: one JSON object per line (escape.c's
 * record_to_json()) to a file, opened O_APPEND and reopened on SIGUSR1, or
 * to stdout ("-"); or, "format = ecs", each record as an Elastic Common
 * Schema document (ecs.c's record_to_ecs()).
 *
 * Lines are never torn or interleaved: complete lines are handed to
 * write(); what a write leaves over (short write, EAGAIN) waits in a buffer
 * and goes out before anything else. With a loop, the lines of one loop
 * iteration (a burst of events) are collected and written together just
 * before the loop waits again (an ev_prepare), or as soon as 64 KiB
 * gathered: one write() per burst instead of one per record. Without a
 * loop every line is written at once. A regular file is written
 * synchronously. A pipe,
 * terminal or socket is written without blocking: a slow reader fills the
 * buffer (bounded, 1 MiB), an ev_io flushes it when the fd is writable, and
 * records that do not fit are dropped. Every record lost (dropped, or a
 * failed write: ENOSPC, EPIPE...) is counted, logged once per burst, and
 * reported in the stream as a {"kind":"dropped","rule":null,"count":N}
 * line as soon as writing works again.
 *
 * Every line carries the origin (origin.c: host, machine, boot) and its
 * place: the output's stream id (new at each open) and seq, one more per
 * line that entered the stream (written or buffered). A line that never
 * does takes no number (the "dropped" line counts it); buffered lines
 * thrown away leave a gap, which the next "dropped" line counts.
 */
#include <ev.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "log.h"
#include "origin.h"
#include "output-private.h"
#include "util.h"

#define JSON_BUFFER_MAX (1024 * 1024)
/* A batch is written when it reaches this size (else before the loop waits). */
#define JSON_BATCH_FLUSH (64 * 1024)
/* A line is formatted straight into the batch when this much room is left
 * (a storm's lines are a few hundred bytes; a longer one goes the long
 * way, through a buffer of its own). */
#define JSON_LINE_ROOM 4096

enum json_mode {
	JSON_WRITE, /* write(): regular files, pipes, terminals */
	JSON_SEND,  /* send(MSG_DONTWAIT | MSG_NOSIGNAL): a socket we must not make O_NONBLOCK */
};

struct json_output {
	struct output head;
	char *path; /* NULL: stdout */
	int fd;
	enum json_mode mode;
	ev_io io;
	ev_prepare prep; /* with a loop: writes the batch before the loop waits */
	/* Bytes waiting to be written: buf[off .. off+len). */
	char *buf;
	size_t off, len, cap, max;
	/* the newlines in it: every line (or a written line's rest) enters
	 * whole, so a flush that writes it all wrote this many lines, and
	 * counts none itself */
	size_t lines;
	bool partial;  /* the first line in buf has been written in part */
	uint64_t lost; /* records lost since the last "dropped" line */
	/* The stream's id and the seq of the last line that entered it (was
	 * written or buffered): a line that never does takes no number. */
	char stream[33];
	uint64_t seq;
	/* what a line is: record_to_json() or record_to_ecs() */
	int (*format)(const struct record *r, char *buf, size_t len);
};

/* r as it goes out on j: with the origin, j's stream and the next seq. */
static struct record numbered(const struct json_output *j, const struct record *r) {
	struct record n = *r;

	n.origin = origin_get();
	n.stream = j->stream;
	n.seq = j->seq + 1;
	return n;
}

static struct json_output *to_json(struct output *o) {
	return (struct json_output *)o;
}

static ssize_t write_some(struct json_output *j, const char *data, size_t n) {
	ssize_t w;

	do {
		if (j->mode == JSON_SEND)
			w = send(j->fd, data, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		else
			w = write(j->fd, data, n);
	} while (w < 0 && errno == EINTR);
	return w < 0 ? -errno : w;
}

/* Write as much of data as the fd takes now. Returns the bytes written and
 * the error that stopped it (0 if all went). */
static size_t write_all(struct json_output *j, const char *data, size_t n, int *err) {
	size_t done = 0;

	*err = 0;
	while (done < n) {
		ssize_t w = write_some(j, data + done, n - done);

		if (w < 0) {
			*err = (int)-w;
			break;
		}
		if (w == 0) {
			*err = EIO;
			break;
		}
		done += (size_t)w;
	}
	return done;
}

static size_t count_lines(const char *p, size_t n) {
	size_t c = 0;

	for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))); p++)
		c++;
	return c;
}

/* Room for n more bytes behind what waits (moved to the front, or the
 * buffer grown). Returns 0 or -ENOMEM. */
static int buffer_reserve(struct json_output *j, size_t n) {
	if (j->off > 0 && j->off + j->len + n > j->cap) {
		memmove(j->buf, j->buf + j->off, j->len);
		j->off = 0;
	}
	if (j->len + n > j->cap) {
		size_t cap = j->cap ? j->cap : 16384;
		char *b;

		while (cap < j->len + n)
			cap *= 2;
		b = realloc(j->buf, cap);
		if (!b)
			return -ENOMEM;
		j->buf = b;
		j->cap = cap;
	}
	return 0;
}

static int buffer_append(struct json_output *j, const char *data, size_t n) {
	int r = buffer_reserve(j, n);

	if (r < 0)
		return r;
	memcpy(j->buf + j->off + j->len, data, n);
	j->len += n;
	j->lines++;
	return 0;
}

static void arm(struct json_output *j) {
	if (j->head.loop && !ev_is_active(&j->io))
		ev_io_start(j->head.loop, &j->io);
}

static void disarm(struct json_output *j) {
	if (j->head.loop && ev_is_active(&j->io))
		ev_io_stop(j->head.loop, &j->io);
}

/* Drop what is buffered (after a hard error, at reopen and close): all
 * complete lines, except a partly written first line, whose rest is kept
 * when keep_partial so the line the file already holds a part of can still
 * be completed. */
static void buffer_discard(struct json_output *j, bool keep_partial, int err) {
	const char *p;
	size_t keep = 0, lines;

	if (j->len == 0) {
		j->off = 0;
		j->partial = false;
		return;
	}
	p = j->buf + j->off;

	if (keep_partial && j->partial) {
		const char *nl = memchr(p, '\n', j->len);

		keep = nl ? (size_t)(nl - p) + 1 : j->len;
	}
	lines = count_lines(p + keep, j->len - keep);
	j->len = keep;
	j->lines = keep > 0; /* (the kept rest ends its line) */
	if (keep == 0) {
		j->off = 0;
		j->partial = false;
	}
	if (lines > 0) {
		char esc[512];

		j->lost += lines;
		if (err)
			output_failed(&j->head, lines, err, "cannot write to %s",
				      j->path ? text_escaped(esc, sizeof(esc), j->path) : "stdout");
		else
			output_dropped(&j->head, lines, "buffered records discarded");
	}
}

/* Try to write the buffer. Returns 0 when it is empty afterwards, -EAGAIN
 * when the fd is full (the ev_io is armed), another -errno on a hard error
 * (complete lines discarded, ev_io disarmed). */
static int flush(struct json_output *j) {
	size_t w, lines;
	int err;

	if (j->len == 0)
		return 0;
	w = write_all(j, j->buf + j->off, j->len, &err);
	lines = w == j->len ? j->lines : count_lines(j->buf + j->off, w);
	j->lines -= lines;
	if (lines > 0)
		output_succeeded(&j->head, lines);
	if (w > 0) {
		/* The head is now a partly written line unless w ended at a newline. */
		j->partial = j->buf[j->off + w - 1] != '\n';
		j->off += w;
		j->len -= w;
	}
	if (j->len == 0) {
		j->off = 0;
		j->partial = false;
		disarm(j);
		return 0;
	}
	if (err == EAGAIN) {
		arm(j);
		return -EAGAIN;
	}
	disarm(j);
	buffer_discard(j, true, err);
	return -err;
}

/*
 * Hand one complete line to the fd, or to the buffer behind what waits
 * there. Returns 0 when the line was written or buffered, -ENOBUFS when
 * the buffer is full, or the -errno of the write.
 */
static int send_line(struct json_output *j, const char *line, size_t n) {
	size_t w;
	int err;

	if (j->len > 0) {
		if (j->len + n > j->max)
			return -ENOBUFS;
		return buffer_append(j, line, n);
	}

	w = write_all(j, line, n, &err);
	if (w == n) {
		output_succeeded(&j->head, 1);
		return 0;
	}
	if (w == 0 && err != EAGAIN)
		return -err;
	/* A part went out (or none, EAGAIN): the rest must follow before
	 * anything else. Always kept, even beyond max: it is less than a line. */
	if (buffer_append(j, line + w, n - w) < 0)
		return -ENOMEM;
	j->partial = w > 0;
	if (err == EAGAIN)
		arm(j);
	return 0;
}

/* When records were lost and the stream is writable again (nothing
 * buffered), say so in the stream. */
static void report_lost(struct json_output *j) {
	struct record r;
	char line[2048]; /* (the origin: a host name of up to 255 bytes, escaped) */
	size_t w;
	int n, err;

	if (j->lost == 0 || j->len > 0)
		return;
	r = (struct record){
		.kind = RECORD_DROPPED,
		.time_usec = now_realtime_usec(),
		.pid = 0,
		.uid = (uid_t)-1,
		.count = j->lost,
	};
	r = numbered(j, &r);
	n = j->format(&r, line, sizeof(line));
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	w = write_all(j, line, (size_t)n, &err);
	if (w == 0 && err != EAGAIN)
		return; /* still failing: report later */
	j->lost = 0;
	if (w == (size_t)n) {
		output_succeeded(&j->head, 1); /* a record too; counted like the others */
		j->seq++;
	}
	if (w < (size_t)n && buffer_append(j, line + w, (size_t)n - w) == 0) {
		j->partial = w > 0;
		j->seq++;
		if (err == EAGAIN)
			arm(j);
	} else if (w > 0 && w < (size_t)n)
		j->seq++; /* (a part is in the file: the number is taken) */
}

static void json_io_cb(struct ev_loop *loop, ev_io *w, int revents) {
	struct json_output *j = w->data;

	if (flush(j) == 0)
		report_lost(j);
}

/* Before the loop waits: the batch goes out (unless the fd refused more
 * and the ev_io waits for it to take some). */
static void on_prepare(struct ev_loop *loop, ev_prepare *w, int revents) {
	struct json_output *j = w->data;

	if (j->len > 0 && !ev_is_active(&j->io) && flush(j) == 0)
		report_lost(j);
}

static void json_emit(struct output *o, const struct record *orig) {
	struct json_output *j = to_json(o);
	struct record rec;
	_cleanup_free_ char *heap = NULL;
	char stack[16384], *line = stack;
	int n, ret;

	/* first what must go before this record: the batch when there is no
	 * loop, a "dropped" line (which takes a number of the stream) */
	if (!j->head.loop && j->len > 0)
		flush(j);
	report_lost(j);

	rec = numbered(j, orig);
	/* batched: formatted where it waits, when it fits a line's usual
	 * room (else below, and copied there) */
	if (j->head.loop && j->len + JSON_LINE_ROOM <= j->max &&
	    buffer_reserve(j, JSON_LINE_ROOM) == 0) {
		n = j->format(&rec, j->buf + j->off + j->len, JSON_LINE_ROOM);
		if (n >= 0 && n < JSON_LINE_ROOM) {
			j->len += (size_t)n;
			j->lines++;
			j->seq++;
			if (j->len >= JSON_BATCH_FLUSH && !ev_is_active(&j->io))
				flush(j);
			return;
		}
	}
	n = j->format(&rec, stack, sizeof(stack));
	if (n < 0) {
		j->lost++;
		output_failed(o, 1, -n, "cannot format a record");
		return;
	}
	if ((size_t)n >= sizeof(stack)) {
		heap = malloc((size_t)n + 1);
		if (!heap) {
			j->lost++;
			output_failed(o, 1, ENOMEM, "cannot format a record");
			return;
		}
		j->format(&rec, heap, (size_t)n + 1);
		line = heap;
	}

	if (j->head.loop) {
		/* batched: written before the loop waits (on_prepare), or now
		 * when the batch is big; behind anything the fd refused */
		if (j->len + (size_t)n > j->max)
			ret = -ENOBUFS;
		else
			ret = buffer_append(j, line, (size_t)n);
		if (ret == 0 && j->len >= JSON_BATCH_FLUSH && !ev_is_active(&j->io))
			flush(j);
	} else
		ret = send_line(j, line, (size_t)n);
	if (ret == 0)
		j->seq++;
	else if (ret == -ENOBUFS) {
		j->lost++;
		output_dropped(o, 1, "the reader is too slow (%zu bytes waiting); dropping records",
			       j->len);
	} else if (ret < 0) {
		char esc[512];

		j->lost++;
		output_failed(o, 1, -ret, "cannot write to %s",
			      j->path ? text_escaped(esc, sizeof(esc), j->path) : "stdout");
	}
}

/* How to write to an fd we opened ourselves with O_NONBLOCK: without a
 * loop to flush a buffer, blocking is the lesser evil. */
static void setup_fd(struct json_output *j, int fd, bool own_description) {
	struct stat st;

	j->fd = fd;
	j->mode = JSON_WRITE;
	if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
		j->mode = JSON_SEND;
	if (!j->head.loop && own_description) {
		int fl = fcntl(fd, F_GETFL);

		if (fl >= 0 && (fl & O_NONBLOCK))
			(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	ev_io_init(&j->io, json_io_cb, fd, EV_WRITE);
	j->io.data = j;
}

/*
 * The file of a json output, as root next to users who may own its
 * directory (or /tmp): never through a symlink (O_NOFOLLOW: a planted link
 * would make root append to its target), never blocking (O_NONBLOCK: a
 * FIFO without a reader fails with ENXIO), and only a regular file, a FIFO
 * or a character device (/dev/null) of the daemon's own uid: a 0666 file
 * or a FIFO another user planted would receive every record. A regular
 * file must have one name only: a hard link planted there (possible to
 * any file where fs.protected_hardlinks is 0) to a file root owns, such as
 * /etc/shadow, has the daemon's uid and would be appended to. why says
 * what was refused.
 */
static int open_file(const char *path, char *why, size_t whylen) {
	_cleanup_close_ int fd = open(
	    path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW,
	    0640);
	struct stat st;

	why[0] = '\0';
	if (fd < 0) {
		int r = -errno;

		if (r == -ELOOP)
			snprintf(why, whylen,
				 "it is a symbolic link (refused: a link someone "
				 "planted would make the daemon append to its target)");
		else if (r == -ENXIO)
			snprintf(why, whylen, "it is a FIFO without a reader");
		return r;
	}
	if (fstat(fd, &st) < 0 ||
	    !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) ||
	    st.st_uid != geteuid()) {
		if (!(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
			snprintf(why, whylen,
				 "it is neither a regular file, a FIFO nor a "
				 "character device");
		else
			snprintf(why, whylen,
				 "it belongs to uid %u, not to the daemon's (%u): refused (a file "
				 "another user made would receive every record)",
				 (unsigned)st.st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	if (S_ISREG(st.st_mode) && st.st_nlink != 1) {
		snprintf(why, whylen,
			 "it has %ju hard links, not 1: refused (a link planted to another "
			 "file would make the daemon append to it)",
			 (uintmax_t)st.st_nlink);
		return -EPERM;
	}
	return steal_fd(&fd);
}

/* A regular file whose last line was cut (its writer stopped in the middle
 * of it: SIGKILL during a write that spans pages ends it at a page) gets
 * the newline it lacks before the first record: the cut record is then a
 * line of its own, and the records after it stay whole. Read through a
 * descriptor of its own (fd is write-only), of the file just checked. */
static void end_cut_line(const char *name, const char *path, int fd) {
	char last, esc[512];
	struct stat st;
	int rfd;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return;
	rfd = reopen_for_reading(fd);
	if (rfd < 0)
		return;
	if (pread(rfd, &last, 1, st.st_size - 1) == 1 && last != '\n' && write(fd, "\n", 1) == 1)
		log_warning(
		    "output '%s': %s ended in a line cut short (its writer stopped in the "
		    "middle of it, as a kill -9 can): ended it, so that the records after it "
		    "stay whole",
		    name, text_escaped(esc, sizeof(esc), path));
	close(rfd);
}

/* A directory others may write to lets them replace the file between two
 * rotations: say so, once per open. */
static void warn_dir(const char *name, const char *path) {
	char dir[PATH_MAX];
	const char *base;
	struct stat st;

	if (output_file_dir(path, dir, sizeof(dir), &base) == 0 && stat(dir, &st) == 0)
		output_warn_dir(name, dir, &st, "before it is reopened (SIGUSR1)",
				"/var/log/fsnotifyd");
}

/*
 * stdout: a pipe or terminal gets a file description of its own (opening
 * /proc/self/fd/1 does that), so making it non-blocking does not change
 * the one the daemon shares with its parent. A socket is written with
 * send(MSG_DONTWAIT). Anything else (a file, /dev/null) is used as is.
 */
static int open_stdout(bool *own) {
	struct stat st;
	int fd;

	if (fstat(STDOUT_FILENO, &st) < 0)
		return -errno;
	if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
		fd = open("/proc/self/fd/1", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0) {
			*own = true;
			return fd;
		}
		log_debug("json output on stdout: cannot reopen it (%s), writing blocking",
			  strerror(errno));
	}
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	*own = false;
	return fd;
}

static int json_reopen(struct output *o) {
	struct json_output *j = to_json(o);
	char why[256];
	int fd;

	if (!j->path)
		return 0;
	fd = open_file(j->path, why, sizeof(why));
	if (fd < 0) {
		char esc[512];

		log_error("output '%s': cannot reopen %s: %s (still writing to the old file)",
			  o->name, text_escaped(esc, sizeof(esc), j->path),
			  why[0] ? why : strerror(-fd));
		return fd;
	}
	warn_dir(o->name, j->path);
	/* What waits for the old file: one last try, then it is lost. Then
	 * the new one's last line, if cut, is ended (after the old file's:
	 * when both are one file, a line this daemon began there is
	 * completed first, or ended for good if its rest was lost). */
	flush(j);
	disarm(j);
	buffer_discard(j, false, 0);
	close(j->fd);
	end_cut_line(o->name, j->path, fd);
	setup_fd(j, fd, true);
	report_lost(j);
	return 0;
}

static void json_free(struct output *o) {
	struct json_output *j = to_json(o);

	flush(j);
	disarm(j);
	if (j->head.loop) {
		ev_ref(j->head.loop);
		ev_prepare_stop(j->head.loop, &j->prep);
	}
	if (j->fd >= 0)
		close(j->fd);
	free(j->buf);
	free(j->path);
	output_done(o);
	free(j);
}

static const struct output_ops json_ops = {
	.emit = json_emit,
	.reopen = json_reopen,
	.free = json_free,
};

int output_json_open(const struct output_conf *conf, struct ev_loop *loop, struct output **ret,
		     char *err, size_t errlen) {
	struct json_output *j;
	bool own = true;
	char esc[512], why[256] = "";
	int fd, r;

	if (!conf->file || !conf->file[0]) {
		snprintf(err, errlen, "output '%s': json output needs a file (or \"-\" for stdout)",
			 conf->name);
		return -EINVAL;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->fd = -1;
	j->max = JSON_BUFFER_MAX;
	j->format = conf->format == FORMAT_ECS ? record_to_ecs : record_to_json;
	origin_new_stream(j->stream);
	r = output_init(&j->head, &json_ops, conf, loop);
	if (r < 0)
		goto fail;
	if (strcmp(conf->file, "-") != 0) {
		j->path = strdup(conf->file);
		if (!j->path) {
			r = -ENOMEM;
			goto fail;
		}
		fd = open_file(j->path, why, sizeof(why));
		if (fd >= 0) {
			warn_dir(conf->name, j->path);
			end_cut_line(conf->name, j->path, fd);
		}
	} else
		fd = open_stdout(&own);
	if (fd < 0) {
		r = fd;
		snprintf(err, errlen, "output '%s': cannot open %s: %s", conf->name,
			 j->path ? text_escaped(esc, sizeof(esc), j->path) : "stdout",
			 why[0] ? why : strerror(-r));
		goto fail;
	}
	setup_fd(j, fd, own);
	if (loop) {
		ev_prepare_init(&j->prep, on_prepare);
		j->prep.data = j;
		ev_prepare_start(loop, &j->prep);
		ev_unref(loop); /* it alone keeps nothing running */
	}
	*ret = &j->head;
	return 0;

fail:
	if (r == -ENOMEM)
		snprintf(err, errlen, "output '%s': out of memory", conf->name);
	free(j->path);
	output_done(&j->head);
	free(j);
	return r;
}

void output_json_set_buffer_max(struct output *o, size_t max) {
	if (o->ops == &json_ops)
		to_json(o)->max = max;
}

size_t output_json_buffered(const struct output *o) {
	return o->ops == &json_ops ? ((const struct json_output *)o)->len : 0;
}
