/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.c — the daemon's own messages: stderr (journal-aware prefixes) and,
 * for notable events, structured journal entries with a MESSAGE_ID.
 * The only global state of the daemon lives here: the log level and whether
 * stderr is the journal, both set once at start.
 */
#include <stdarg.h>
#include <sys/uio.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

#include "fsn-util.h"
#include "log.h"

static int max_level = LOG_INFO;
static int stderr_is_journal = -1; /* -1: not checked yet */

void log_set_level(int priority) {
	max_level = priority;
}

int log_get_level(void) {
	return max_level;
}

/* JOURNAL_STREAM is "DEV:INO" of the stream systemd connected stderr to. */
static bool check_stderr_is_journal(void) {
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

static void __attribute__((format(printf, 2, 0))) vlog(int priority, const char *fmt, va_list ap) {
	char msg[2048];

	if (priority > max_level)
		return;
	if (stderr_is_journal < 0)
		stderr_is_journal = check_stderr_is_journal();
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (stderr_is_journal)
		fprintf(stderr, "<%d>%s\n", priority, msg);
	else
		fprintf(stderr, "fsnotifyd: %s\n", msg);
}

void log_msg(int priority, const char *fmt, ...) {
	va_list ap;

	va_start(ap, fmt);
	vlog(priority, fmt, ap);
	va_end(ap);
}

void log_notable(int priority, const char *mid, const char *const *fields, const char *fmt, ...) {
	struct iovec iov[16];
	char msg[2048], prio[32], id[64];
	char *m = NULL;
	size_t n = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg(priority, "%s", msg);

	/* Structured copy for the journal; harmless when there is none. When
	 * stderr already is the journal this is a second, richer entry only for
	 * these rare events. */
	if (access("/run/systemd/journal/socket", W_OK) < 0)
		return;
	if (asprintf(&m, "MESSAGE=%s", msg) < 0)
		return;
	snprintf(prio, sizeof(prio), "PRIORITY=%d", priority);
	snprintf(id, sizeof(id), "MESSAGE_ID=%s", mid);
	iov[n++] = (struct iovec){ m, strlen(m) };
	iov[n++] = (struct iovec){ prio, strlen(prio) };
	iov[n++] = (struct iovec){ id, strlen(id) };
	for (size_t i = 0; fields && fields[i] && n < ELEMENTSOF(iov); i++)
		iov[n++] = (struct iovec){ (void *)fields[i], strlen(fields[i]) };
	sd_journal_sendv(iov, (int)n);
	free(m);
}
