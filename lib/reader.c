/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * reader.c — draining a context's kernel queues on a thread of their own
 * (fsn_ctx_set_reader()).
 *
 * The thread waits on an epoll set of its own holding the sources it
 * drains (the inotify fd, notification groups whose events carry no fd
 * but perhaps a pidfd: those it keeps are counted in the context's fd
 * budget, the others closed as they are read, FAN_EPIDFD in their place),
 * reads each readable one until a short read, and queues what it read as
 * chunks, oldest first; the context's dispatch takes them in that order, so
 * the events of one source keep theirs. A chunk is one read() (up to
 * FSN_READ_BUF_SIZE); a short one is copied into a chunk of its own size,
 * so the bound counts what is really held.
 *
 * The bound: the thread reads only while the chunks queued and another
 * full read fit in max bytes (one read is always allowed). When they do not, it stops reading
 * (counted in n_full) and the kernel queues fill behind it; a full kernel queue reports its
 * overflow as it always does. Nothing is dropped here.
 *
 * Locks: rd->lock guards the queue, the counters and the flags; rd->io is
 * held around each read() and by fsn_reader_remove(), so the context never
 * closes an fd the thread is reading (nor one it is about to read: the
 * fd is looked up under rd->io). The thread tells the context's epoll set
 * that chunks wait through rd->efd once HANDOVER_BYTES wait, or the oldest
 * untold chunk has waited HANDOVER_NSEC, or before it waits itself (for
 * the kernel, for room, or stopped): in a storm the consumer wakes once per
 * few reads, never later than the thread finds the kernel queues empty.
 * The consumer resets it when it takes the last chunk (both under
 * rd->lock).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ctx-private.h"

#define WAKE_EPOLL_ID UINT64_MAX
#define SPARE_CHUNKS 4 /* full-size chunks kept for the next reads */
#define MAX_SOURCES 64
#define GATHER_NSEC 1000000L /* after short reads, wait this long before reading again */
/* What is read is handed over (rd->efd) once this much waits, or the first
 * chunk has waited this long, or the thread is about to wait itself: one
 * wake-up of the consumer per few gathers, not per read. */
#define HANDOVER_BYTES (2 * FSN_READ_BUF_SIZE)
#define HANDOVER_NSEC 2000000L

struct source {
	unsigned src;
	int fd;
	bool pidfds; /* its events carry pidfds: rationed (fsn_pidfds_ration()) */
	struct fsn_queue_count *q;
};

struct fsn_reader {
	pthread_t thread;
	bool running;
	int epfd; /* the sources, and wake */
	int wake; /* eventfd: stop, or the queue has room again */
	int efd;  /* eventfd in the context's epoll set: chunks queued */

	pthread_mutex_t io; /* held around each read(); guards sources[] and budget */
	struct source sources[MAX_SOURCES];
	size_t n_sources;
	struct fsn_fd_budget *budget; /* the context's: the pidfds kept, counted */

	pthread_mutex_t lock; /* the rest */
	pthread_cond_t room;
	struct fsn_chunk *head, *tail;
	struct fsn_chunk *spare[SPARE_CHUNKS];
	size_t n_spare;
	size_t bytes, peak, max;
	uint64_t n_full;
	bool full;             /* the thread waits for room */
	bool waiting;          /* the thread waits for the kernel (in epoll_wait) */
	bool told;             /* efd set: the consumer knows the queue holds chunks */
	uint64_t untold_since; /* CLOCK_MONOTONIC ns of the oldest chunk not told (0: none) */
	bool stop;
	unsigned failed_src; /* a read failed (not EAGAIN): given back, see fsn_reader_failed() */
	int failed_err;
};

/* Make an eventfd readable / not readable (write cannot fail short of a
 * counter overflow, which reads readable too; read fails with EAGAIN when
 * it was not set). */
static void efd_set(int fd) {
	const uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0)
		return;
}

static void efd_reset(int fd) {
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0)
		return;
}

static uint64_t now_ns(void) {
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Under rd->lock: tell the consumer that chunks are queued. */
static void tell_locked(struct fsn_reader *rd) {
	if (rd->head && !rd->told) {
		efd_set(rd->efd);
		rd->told = true;
	}
	rd->untold_since = 0;
}

static size_t chunk_size(size_t len) {
	return offsetof(struct fsn_chunk, data) + len;
}

/* A full-size chunk (a spare one, or new). */
static struct fsn_chunk *chunk_get(struct fsn_reader *rd) {
	struct fsn_chunk *c = NULL;

	pthread_mutex_lock(&rd->lock);
	if (rd->n_spare > 0)
		c = rd->spare[--rd->n_spare];
	pthread_mutex_unlock(&rd->lock);
	if (!c) {
		c = aligned_alloc(64, chunk_size(FSN_READ_BUF_SIZE));
		if (c)
			c->size = chunk_size(FSN_READ_BUF_SIZE);
	}
	return c;
}

/* Under rd->lock: keep c for the next reads, or free it. */
static void chunk_put_locked(struct fsn_reader *rd, struct fsn_chunk *c) {
	if (c->size == chunk_size(FSN_READ_BUF_SIZE) && rd->n_spare < SPARE_CHUNKS)
		rd->spare[rd->n_spare++] = c;
	else
		free(c);
}

static const struct source *source_locked(const struct fsn_reader *rd, unsigned src) {
	for (size_t i = 0; i < rd->n_sources; i++)
		if (rd->sources[i].src == src)
			return &rd->sources[i];
	return NULL;
}

/* Under rd->io: forget src (and stop waiting for it). */
static void source_drop_locked(struct fsn_reader *rd, unsigned src) {
	for (size_t i = 0; i < rd->n_sources; i++)
		if (rd->sources[i].src == src) {
			(void)epoll_ctl(rd->epfd, EPOLL_CTL_DEL, rd->sources[i].fd, NULL);
			rd->sources[i] = rd->sources[--rd->n_sources];
			return;
		}
}

/* Under rd->lock: no room for another full read (one is always allowed). */
static bool full_locked(const struct fsn_reader *rd) {
	return rd->bytes > 0 && rd->bytes + chunk_size(FSN_READ_BUF_SIZE) > rd->max;
}

/* Queue a chunk read from src; true when the queue is full now. */
static bool queue_chunk(struct fsn_reader *rd, struct fsn_chunk *c) {
	bool full;

	pthread_mutex_lock(&rd->lock);
	c->next = NULL;
	if (rd->tail)
		rd->tail->next = c;
	else
		rd->head = c;
	rd->tail = c;
	rd->bytes += c->size;
	if (rd->bytes > rd->peak)
		rd->peak = rd->bytes;
	full = full_locked(rd);
	if (!rd->told) {
		uint64_t now = now_ns();

		if (!rd->untold_since)
			rd->untold_since = now;
		if (full || rd->bytes >= HANDOVER_BYTES || now - rd->untold_since >= HANDOVER_NSEC)
			tell_locked(rd);
	}
	pthread_mutex_unlock(&rd->lock);
	return full;
}

/* Read src until a short read, an error or a full queue; true when it
 * read a full buffer's worth at least once (the queue was long). */
static bool read_source(struct fsn_reader *rd, unsigned src) {
	bool long_queue = false, full;

	pthread_mutex_lock(&rd->lock);
	full = full_locked(rd);
	pthread_mutex_unlock(&rd->lock);
	if (full)
		return false; /* (epoll says so again once there is room) */

	for (;;) {
		struct fsn_chunk *c = chunk_get(rd), *small;
		const struct source *s;
		ssize_t n = -1;
		int fd, err = 0;

		if (!c) {
			/* no memory: wait a little, the kernel queue holds the rest */
			usleep(10000);
			return false;
		}
		pthread_mutex_lock(&rd->io);
		s = source_locked(rd, src);
		fd = s ? s->fd : -1;
		c->pidfds = s && s->pidfds;
		if (fd >= 0) {
			do
				n = read(fd, c->data, FSN_READ_BUF_SIZE);
			while (n < 0 && errno == EINTR);
			err = n < 0 ? errno : 0;
			if (n < 0 && err != EAGAIN)
				source_drop_locked(rd, src); /* given back to the context */
			if (n > 0 && c->pidfds)
				fsn_pidfds_ration(rd->budget, c->data, (size_t)n);
			if (n > 0 && s->q)
				atomic_fetch_add_explicit(
				    &s->q->read, fsn_queue_units(src != 0, c->data, (size_t)n),
				    memory_order_relaxed);
		}
		pthread_mutex_unlock(&rd->io);
		if (n <= 0) {
			pthread_mutex_lock(&rd->lock);
			chunk_put_locked(rd, c);
			if (n < 0 && err != EAGAIN && rd->failed_err == 0) {
				rd->failed_src = src;
				rd->failed_err = err;
				efd_set(rd->efd);
			}
			pthread_mutex_unlock(&rd->lock);
			return long_queue;
		}
		c->src = src;
		c->off = 0;
		c->len = (size_t)n;
		if ((size_t)n < FSN_READ_BUF_SIZE / 4 &&
		    (small = aligned_alloc(64, chunk_size(((size_t)n + 63) & ~(size_t)63)))) {
			memcpy(small, c, chunk_size((size_t)n));
			small->size = chunk_size(((size_t)n + 63) & ~(size_t)63);
			pthread_mutex_lock(&rd->lock);
			chunk_put_locked(rd, c);
			pthread_mutex_unlock(&rd->lock);
			c = small;
		}
		if (queue_chunk(rd, c) || (size_t)n < FSN_READ_BUF_SIZE / 2)
			return long_queue;
		long_queue = true;
	}
}

static void *reader_main(void *arg) {
	struct fsn_reader *rd = arg;
	const struct timespec gather = { .tv_nsec = GATHER_NSEC };
	struct epoll_event ee[16];

	for (;;) {
		bool long_queue = false;
		int n;

		pthread_mutex_lock(&rd->lock);
		while (!rd->stop && full_locked(rd)) {
			tell_locked(rd);
			if (!rd->full)
				rd->n_full++;
			rd->full = true;
			pthread_cond_wait(&rd->room, &rd->lock);
		}
		rd->full = false;
		if (rd->stop) {
			pthread_mutex_unlock(&rd->lock);
			return NULL;
		}
		pthread_mutex_unlock(&rd->lock);

		/* "waiting" (fsn_reader_idle()) only once a look found nothing
		 * readable: what the kernel holds now is never called drained */
		n = epoll_wait(rd->epfd, ee, (int)(sizeof(ee) / sizeof(ee[0])), 0);
		if (n == 0) {
			pthread_mutex_lock(&rd->lock);
			tell_locked(rd); /* (all it read, before it waits) */
			rd->waiting = true;
			pthread_mutex_unlock(&rd->lock);
			n = epoll_wait(rd->epfd, ee, (int)(sizeof(ee) / sizeof(ee[0])), -1);
			pthread_mutex_lock(&rd->lock);
			rd->waiting = false;
			pthread_mutex_unlock(&rd->lock);
		}
		for (int i = 0; i < n; i++) {
			if (ee[i].data.u64 == WAKE_EPOLL_ID) {
				efd_reset(rd->wake);
				continue;
			}
			long_queue |= read_source(rd, (unsigned)ee[i].data.u64);
		}
		/* Short reads only: let a little gather before the next (a read
		 * and a hand-over for every few events cost more than the
		 * events); a long queue is read again at once. */
		if (n > 0 && !long_queue)
			nanosleep(&gather, NULL);
		else if (long_queue)
			sched_yield(); /* (a storm: the CPU's other threads get a turn) */
	}
}

int fsn_reader_new(size_t max, int ctx_epfd, uint64_t epoll_id, struct fsn_reader **ret) {
	struct epoll_event ee = { .events = EPOLLIN, .data.u64 = WAKE_EPOLL_ID };
	struct fsn_reader *rd = calloc(1, sizeof(*rd));
	sigset_t all, old;
	int r;

	if (!rd)
		return -ENOMEM;
	rd->max = max;
	rd->epfd = epoll_create1(EPOLL_CLOEXEC);
	rd->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rd->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pthread_mutex_init(&rd->io, NULL);
	pthread_mutex_init(&rd->lock, NULL);
	pthread_cond_init(&rd->room, NULL);
	if (rd->epfd < 0 || rd->wake < 0 || rd->efd < 0 ||
	    epoll_ctl(rd->epfd, EPOLL_CTL_ADD, rd->wake, &ee) < 0)
		goto fail;
	ee.data.u64 = epoll_id;
	if (epoll_ctl(ctx_epfd, EPOLL_CTL_ADD, rd->efd, &ee) < 0)
		goto fail;
	/* signals stay with the caller's threads */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&rd->thread, NULL, reader_main, rd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		errno = r;
		(void)epoll_ctl(ctx_epfd, EPOLL_CTL_DEL, rd->efd, NULL);
		goto fail;
	}
	rd->running = true;
	*ret = rd;
	return 0;
fail:
	r = errno ? -errno : -ENOMEM;
	rd->running = false;
	fsn_reader_free(rd);
	return r;
}

void fsn_reader_stop(struct fsn_reader *rd) {
	if (!rd || !rd->running)
		return;
	pthread_mutex_lock(&rd->lock);
	rd->stop = true;
	pthread_cond_signal(&rd->room);
	pthread_mutex_unlock(&rd->lock);
	efd_set(rd->wake);
	pthread_join(rd->thread, NULL);
	rd->running = false;
	pthread_mutex_lock(&rd->lock);
	tell_locked(rd); /* (what it queued stays, for fsn_reader_take()) */
	pthread_mutex_unlock(&rd->lock);
}

struct fsn_reader *fsn_reader_free(struct fsn_reader *rd) {
	if (!rd)
		return NULL;
	fsn_reader_stop(rd);
	while (rd->head) {
		struct fsn_chunk *c = rd->head;

		rd->head = c->next;
		fsn_chunk_close_pidfds(rd->budget, c);
		free(c);
	}
	while (rd->n_spare > 0)
		free(rd->spare[--rd->n_spare]);
	safe_close(rd->epfd);
	safe_close(rd->wake);
	safe_close(rd->efd); /* (leaves the context's epoll set with it) */
	pthread_cond_destroy(&rd->room);
	pthread_mutex_destroy(&rd->lock);
	pthread_mutex_destroy(&rd->io);
	free(rd);
	return NULL;
}

bool fsn_reader_running(const struct fsn_reader *rd) {
	return rd && rd->running;
}

void fsn_reader_set_max(struct fsn_reader *rd, size_t max) {
	pthread_mutex_lock(&rd->lock);
	rd->max = max;
	pthread_cond_signal(&rd->room);
	pthread_mutex_unlock(&rd->lock);
}

void fsn_reader_set_budget(struct fsn_reader *rd, struct fsn_fd_budget *b) {
	pthread_mutex_lock(&rd->io);
	rd->budget = b;
	pthread_mutex_unlock(&rd->io);
}

void fsn_chunk_close_pidfds(struct fsn_fd_budget *b, struct fsn_chunk *c) {
	if (c->pidfds && c->off < c->len)
		fsn_pidfds_close(b, c->data + c->off, c->len - c->off);
	c->pidfds = false;
}

int fsn_reader_add(struct fsn_reader *rd, unsigned src, int fd, bool pidfds,
		   struct fsn_queue_count *q) {
	struct epoll_event ee = { .events = EPOLLIN, .data.u64 = src };
	int r = 0;

	pthread_mutex_lock(&rd->io);
	if (rd->n_sources == MAX_SOURCES)
		r = -ENOSPC;
	else if (epoll_ctl(rd->epfd, EPOLL_CTL_ADD, fd, &ee) < 0)
		r = -errno;
	else
		rd->sources[rd->n_sources++] =
		    (struct source){ .src = src, .fd = fd, .pidfds = pidfds, .q = q };
	pthread_mutex_unlock(&rd->io);
	return r;
}

void fsn_reader_remove(struct fsn_reader *rd, unsigned src, bool drop) {
	struct fsn_chunk **p;

	pthread_mutex_lock(&rd->io);
	source_drop_locked(rd, src);
	pthread_mutex_unlock(&rd->io);
	if (!drop)
		return;

	pthread_mutex_lock(&rd->lock);
	rd->tail = NULL;
	for (p = &rd->head; *p;) {
		struct fsn_chunk *c = *p;

		if (c->src == src) {
			*p = c->next;
			rd->bytes -= c->size;
			fsn_chunk_close_pidfds(rd->budget, c);
			chunk_put_locked(rd, c);
			continue;
		}
		rd->tail = c;
		p = &c->next;
	}
	pthread_cond_signal(&rd->room);
	pthread_mutex_unlock(&rd->lock);
}

struct fsn_chunk *fsn_reader_take(struct fsn_reader *rd) {
	struct fsn_chunk *c;

	pthread_mutex_lock(&rd->lock);
	c = rd->head;
	if (c) {
		rd->head = c->next;
		if (!rd->head)
			rd->tail = NULL;
	}
	if (!rd->head && rd->failed_err == 0) {
		efd_reset(rd->efd);
		rd->told = false;
		rd->untold_since = 0;
	}
	pthread_mutex_unlock(&rd->lock);
	return c;
}

void fsn_reader_done(struct fsn_reader *rd, struct fsn_chunk *c) {
	pthread_mutex_lock(&rd->lock);
	rd->bytes -= c->size;
	chunk_put_locked(rd, c);
	if (rd->full)
		pthread_cond_signal(&rd->room);
	pthread_mutex_unlock(&rd->lock);
}

bool fsn_reader_drained(struct fsn_reader *rd) {
	struct epoll_event ee[MAX_SOURCES + 1];
	int n;

	/* the kernel's queues, then the thread: waiting, it handed over all
	 * it read before it looked and found nothing */
	n = epoll_wait(rd->epfd, ee, (int)(sizeof(ee) / sizeof(ee[0])), 0);
	if (n < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (ee[i].data.u64 != WAKE_EPOLL_ID)
			return false;
	return fsn_reader_idle(rd);
}

void fsn_reader_hold_io(struct fsn_reader *rd, bool hold) {
	if (hold)
		pthread_mutex_lock(&rd->io);
	else
		pthread_mutex_unlock(&rd->io);
}

bool fsn_reader_idle(struct fsn_reader *rd) {
	bool idle;

	pthread_mutex_lock(&rd->lock);
	idle = !rd->head && (rd->waiting || !rd->running);
	pthread_mutex_unlock(&rd->lock);
	return idle;
}

int fsn_reader_failed(struct fsn_reader *rd, unsigned *ret_src) {
	int err;

	pthread_mutex_lock(&rd->lock);
	err = rd->failed_err;
	*ret_src = rd->failed_src;
	rd->failed_err = 0;
	pthread_mutex_unlock(&rd->lock);
	return err ? -err : 0;
}

void fsn_reader_get_stats(struct fsn_reader *rd, struct fsn_reader_stats *ret) {
	pthread_mutex_lock(&rd->lock);
	*ret = (struct fsn_reader_stats){
		.bytes = rd->bytes,
		.peak = rd->peak,
		.max = rd->max,
		.n_full = rd->n_full,
	};
	pthread_mutex_unlock(&rd->lock);
}
