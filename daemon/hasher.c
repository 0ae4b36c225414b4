/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hasher.c — a thread that hashes files handed over by the loop, in order
 * (hasher.h). The loop appends to `waiting`; the thread takes the head,
 * reads it (outside the lock) and appends it to `done`; an ev_async brings
 * `done` back to the loop, which reports and frees.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>
#include <openssl/evp.h>

#include "attrcache.h"
#include "fsn-util.h"
#include "hasher.h"
#include "log.h"
#include "util.h"

#define HASHER_THREAD_NAME "fsnd-hash"
#define READ_CHUNK (256 * 1024)
#define HASHER_NICE 10
#define HASHER_STOP_SEC 5

struct jlist {
	struct hash_job *head, *tail;
	size_t n;
};

struct hasher {
	struct ev_loop *loop;
	ev_async async;
	hasher_done_fn done;
	void *userdata;
	pthread_t thread;
	bool started;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* under lock */
	struct jlist waiting, finished;
	size_t with_fd; /* waiting jobs that hold an fd */
	struct hasher_limits limits;
	volatile bool stop;

	struct hasher_stats stats; /* main thread */
};

static void jlist_append(struct jlist *l, struct hash_job *j) {
	j->next = NULL;
	j->prev = l->tail;
	if (l->tail)
		l->tail->next = j;
	else
		l->head = j;
	l->tail = j;
	l->n++;
}

static struct hash_job *jlist_pop(struct jlist *l) {
	struct hash_job *j = l->head;

	if (!j)
		return NULL;
	l->head = j->next;
	if (l->head)
		l->head->prev = NULL;
	else
		l->tail = NULL;
	l->n--;
	j->next = j->prev = NULL;
	return j;
}

static void job_free(struct hash_job *j) {
	if (!j)
		return;
	safe_close(j->fd);
	free(j->rule);
	free(j->path);
	free(j);
}

static void jlist_free(struct jlist *l) {
	struct hash_job *j;

	while ((j = jlist_pop(l)))
		job_free(j);
}

/* ---- one file ---- */

static bool same_version(const struct statx *a, const struct statx *b) {
	return a->stx_size == b->stx_size && a->stx_mtime.tv_sec == b->stx_mtime.tv_sec &&
	       a->stx_mtime.tv_nsec == b->stx_mtime.tv_nsec &&
	       a->stx_ctime.tv_sec == b->stx_ctime.tv_sec &&
	       a->stx_ctime.tv_nsec == b->stx_ctime.tv_nsec && a->stx_ino == b->stx_ino;
}

/* Wait until read bytes since start keep under rate; false: stop asked. */
static bool pace(uint64_t start_usec, uint64_t read, uint64_t rate, const volatile bool *stop) {
	uint64_t due, now;

	if (rate == 0)
		return !(stop && *stop);
	due = start_usec + read / rate * 1000000u + read % rate * 1000000u / rate;
	while ((now = now_monotonic_usec()) < due) {
		uint64_t wait = due - now < 50000 ? due - now : 50000;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)(wait * 1000) };

		if (stop && *stop)
			return false;
		nanosleep(&ts, NULL);
	}
	return !(stop && *stop);
}

int hash_reader_init(struct hash_reader *rd) {
	*rd = (struct hash_reader){ .size = READ_CHUNK };
	rd->buf = malloc(rd->size);
	rd->md = EVP_MD_CTX_new();
	rd->md5 = EVP_MD_CTX_new();
	if (!rd->buf || !rd->md || !rd->md5) {
		hash_reader_done(rd);
		return -ENOMEM;
	}
	return 0;
}

void hash_reader_done(struct hash_reader *rd) {
	free(rd->buf);
	EVP_MD_CTX_free(rd->md);
	EVP_MD_CTX_free(rd->md5);
	*rd = (struct hash_reader){ 0 };
}

bool hasher_hash_fd(struct hash_reader *rd, int fd, uint64_t max_size, uint64_t rate,
		    const volatile bool *stop, struct record_content *ret, unsigned char *md5) {
	unsigned char md[EVP_MAX_MD_SIZE], md5_out[EVP_MAX_MD_SIZE];
	unsigned md_len = 0, md5_len = 0;
	struct statx before, after;
	struct stat pre;
	uint64_t total = 0, start;
	_cleanup_close_ int rfd = -1;

	ret->sha256[0] = '\0';
	ret->has_size = false;
	ret->skipped = "error";
	if (!rd->buf || !rd->md)
		return false;
	/* (what fd is, before it is opened: a device or a FIFO put in a
	 * file's place is never opened, its open may act) */
	if (fstat(fd, &pre) < 0) {
		ret->skipped = lookup_failure(-errno);
		return false;
	}
	if (!S_ISREG(pre.st_mode)) {
		ret->skipped = "not_regular";
		return false;
	}
	rfd = reopen_for_reading(fd);
	if (rfd < 0) {
		ret->skipped = lookup_failure(rfd);
		return false;
	}
	if (statx(rfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &before) < 0)
		return false;
	if (!S_ISREG(before.stx_mode)) {
		ret->skipped = "not_regular";
		return false;
	}
	ret->size = before.stx_size;
	ret->has_size = true;
	if (max_size && before.stx_size > max_size) {
		ret->skipped = "too_big";
		return false;
	}
	if (EVP_DigestInit_ex(rd->md, EVP_sha256(), NULL) != 1 ||
	    (md5 && EVP_DigestInit_ex(rd->md5, EVP_md5(), NULL) != 1))
		return false;
	start = now_monotonic_usec();
	for (;;) {
		ssize_t n = read(rfd, rd->buf, rd->size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		if (n == 0)
			break;
		if (EVP_DigestUpdate(rd->md, rd->buf, (size_t)n) != 1 ||
		    (md5 && EVP_DigestUpdate(rd->md5, rd->buf, (size_t)n) != 1))
			return false;
		total += (uint64_t)n;
		if (max_size && total > max_size) {
			ret->skipped = "changing"; /* (it grew past the cap as it was read) */
			return false;
		}
		if (!pace(start, total, rate, stop)) {
			ret->skipped = "stopped";
			return false;
		}
	}
	if (EVP_DigestFinal_ex(rd->md, md, &md_len) != 1 || md_len != 32 ||
	    (md5 && (EVP_DigestFinal_ex(rd->md5, md5_out, &md5_len) != 1 || md5_len != 16)))
		return false;
	if (statx(rfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &after) < 0)
		return false;
	if (!same_version(&before, &after) || total != before.stx_size) {
		ret->skipped = "changing";
		ret->size = after.stx_size;
		return false;
	}
	hex_encode(md, md_len, ret->sha256);
	ret->skipped = NULL;
	ret->size = total;
	if (md5)
		memcpy(md5, md5_out, 16);
	return true;
}

/* ---- the thread ---- */

static void *hasher_main(void *arg) {
	struct hasher *h = arg;
	struct hash_reader rd;

	(void)pthread_setname_np(pthread_self(), HASHER_THREAD_NAME);
	/* Behind the loop on a shared CPU: a record waits for no hash, and a
	 * hash may wait (Linux: a thread's own nice value). */
	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), HASHER_NICE);
	(void)hash_reader_init(&rd); /* (failed: each file's record says "error") */
	pthread_mutex_lock(&h->lock);
	for (;;) {
		struct hash_job *j;
		struct hasher_limits l;

		while (!h->stop && !h->waiting.head)
			pthread_cond_wait(&h->cond, &h->lock);
		if (h->stop || !(j = jlist_pop(&h->waiting)))
			break;
		h->with_fd -= j->fd >= 0;
		l = h->limits;
		pthread_mutex_unlock(&h->lock);

		if (j->fd >= 0) {
			j->has_md5 = hasher_hash_fd(&rd, j->fd, l.max_size, l.rate, &h->stop,
						    &j->content, j->pkg_id ? j->md5 : NULL) &&
				     j->pkg_id;
			j->fd = safe_close(j->fd);
		}

		pthread_mutex_lock(&h->lock);
		jlist_append(&h->finished, j);
		ev_async_send(h->loop, &h->async);
	}
	pthread_mutex_unlock(&h->lock);
	hash_reader_done(&rd);
	return NULL;
}

static void count(struct hasher_stats *s, const struct record_content *c) {
	const char *k = c->skipped;

	if (!k) {
		s->hashed++;
		s->bytes += c->size;
	} else if (strcmp(k, "too_big") == 0)
		s->skipped_too_big++;
	else if (strcmp(k, "backlog") == 0)
		s->skipped_backlog++;
	else if (strcmp(k, "gone") == 0)
		s->skipped_gone++;
	else if (strcmp(k, "not_regular") == 0)
		s->skipped_not_regular++;
	else if (strcmp(k, "changing") == 0)
		s->skipped_changing++;
	else if (strcmp(k, "stopped") == 0)
		s->skipped_stopped++;
	else
		s->skipped_error++;
}

static void on_finished(struct ev_loop *loop, ev_async *w, int revents) {
	struct hasher *h = w->data;
	struct jlist l;
	struct hash_job *j;

	(void)loop;
	(void)revents;
	pthread_mutex_lock(&h->lock);
	l = h->finished;
	h->finished = (struct jlist){ 0 };
	pthread_mutex_unlock(&h->lock);
	while ((j = jlist_pop(&l))) {
		h->stats.waiting--;
		count(&h->stats, &j->content);
		h->done(h->userdata, j);
		job_free(j);
	}
}

int hasher_new(struct ev_loop *loop, hasher_done_fn done, void *userdata, struct hasher **ret) {
	struct hasher *h = calloc(1, sizeof(*h));
	int r;

	if (!h)
		return -ENOMEM;
	h->loop = loop;
	h->done = done;
	h->userdata = userdata;
	h->limits = (struct hasher_limits){ .queue = 256, .max_size = 64ull << 20 };
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	ev_async_init(&h->async, on_finished);
	h->async.data = h;
	ev_async_start(loop, &h->async);
	ev_unref(loop); /* (the hasher alone keeps no loop running) */
	r = thread_start(&h->thread, hasher_main, h);
	if (r < 0) {
		(void)hasher_free(h);
		return r;
	}
	h->started = true;
	*ret = h;
	return 0;
}

struct hasher *hasher_free(struct hasher *h) {
	struct hash_job *j;

	if (!h)
		return NULL;
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
	if (h->started) {
		struct timespec until;

		/* a read that never returns (a stuck FUSE or network file)
		 * does not hold up the stop: the thread is left behind, with
		 * what it holds */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += HASHER_STOP_SEC;
		if (pthread_timedjoin_np(h->thread, NULL, &until) != 0) {
			log_warning("the hasher thread did not stop within %d s (a read that does "
				    "not return): left behind",
				    HASHER_STOP_SEC);
			return NULL;
		}
	}
	/* what was handed over is given back, what still waited unread */
	while ((j = jlist_pop(&h->waiting))) {
		if (j->fd >= 0) {
			j->fd = safe_close(j->fd);
			j->content.skipped = "stopped";
		}
		jlist_append(&h->finished, j);
	}
	if (h->started)
		on_finished(h->loop, &h->async, 0);
	ev_ref(h->loop);
	ev_async_stop(h->loop, &h->async);
	jlist_free(&h->waiting);
	jlist_free(&h->finished);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	free(h);
	return NULL;
}

void hasher_set_limits(struct hasher *h, const struct hasher_limits *l) {
	pthread_mutex_lock(&h->lock);
	h->limits = *l;
	pthread_mutex_unlock(&h->lock);
}

void hasher_get_stats(const struct hasher *h, struct hasher_stats *ret) {
	*ret = h->stats;
}

/* A waiting job of rule's for fd's file under the same name, among the
 * last few queued. (A file renamed meanwhile is its own job: the record of
 * the change made under its old name keeps that name, the rename's tells
 * the new one.) */
static struct hash_job *waiting_twin(struct hasher *h, dev_t dev, ino_t ino, const char *rule,
				     const char *path) {
	unsigned k = 0;

	for (struct hash_job *j = h->waiting.tail; j && k < 8; j = j->prev, k++)
		if (j->fd >= 0 && !j->pkg_id && j->dev == dev && j->ino == ino &&
		    strcmp(j->rule, rule) == 0 && strcmp(j->path, path) == 0)
			return j;
	return NULL;
}

int hasher_submit(struct hasher *h, int fd, const char *skipped, const char *rule, const char *path,
		  uint64_t mask, uint64_t event_usec, uint64_t pkg_id) {
	struct hash_job *j, *twin;
	struct stat st;
	bool at_once;

	if (fd >= 0 && fstat(fd, &st) < 0) {
		skipped = "error";
		fd = safe_close(fd);
	} else if (fd >= 0 && !S_ISREG(st.st_mode)) {
		skipped = "not_regular";
		fd = safe_close(fd);
	}
	pthread_mutex_lock(&h->lock);
	if (fd >= 0 && !pkg_id && (twin = waiting_twin(h, st.st_dev, st.st_ino, rule, path))) {
		twin->mask |= mask;
		twin->content.event_usec = event_usec;
		pthread_mutex_unlock(&h->lock);
		safe_close(fd);
		h->stats.merged++;
		return 1;
	}
	if (fd >= 0 && h->with_fd >= h->limits.queue) {
		fd = safe_close(fd);
		skipped = "backlog";
	}
	pthread_mutex_unlock(&h->lock);

	j = calloc(1, sizeof(*j));
	if (!j || !(j->rule = strdup(rule)) || !(j->path = strdup(path))) {
		safe_close(fd);
		if (j) {
			j->fd = -1;
			job_free(j);
		}
		return -ENOMEM;
	}
	j->fd = fd;
	j->mask = mask;
	j->pkg_id = pkg_id;
	j->content.event_usec = event_usec;
	if (fd >= 0) {
		j->dev = st.st_dev;
		j->ino = st.st_ino;
	} else
		j->content.skipped = skipped ? skipped : "error";

	pthread_mutex_lock(&h->lock);
	/* (a file without fd waits its turn while there is room for it) */
	at_once = fd < 0 && h->waiting.n >= (h->limits.queue + 1) * (HASHER_SKIPPED_MAX + 1);
	if (at_once) {
		jlist_append(&h->finished, j);
		ev_async_send(h->loop, &h->async);
	} else {
		jlist_append(&h->waiting, j);
		h->with_fd += fd >= 0;
		pthread_cond_signal(&h->cond);
	}
	pthread_mutex_unlock(&h->lock);
	h->stats.waiting++;
	return 0;
}
