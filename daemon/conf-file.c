/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf-file.c — the config loader's files: the bytes of the main file and
 * of its conf.d/ drop-ins, from disk into libconfig, safely. A file is read
 * as a regular file of at most CONFIG_FILE_MAX bytes, opened without
 * blocking; its @include directives are found, checked the same way and
 * rewritten to name in-memory copies (memfds), so libconfig reads only
 * what was checked; the copy is parsed by a child process first
 * (libconfig leaks on a file that does not parse), then here (only here
 * with CONFIG_LOAD_IN_PROCESS, the fuzzer's), and its settings are read
 * by conf.c's read_group() against the top-level table.
 * real_file() names a copy's file for messages; find_dropins() lists
 * conf.d/ *.conf. conf.c's config_load() calls load_file() for the main
 * file and each drop-in in order.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf-private.h"
#include "conf.h"
#include "util.h"

/* The file libconfig names (an include's copy) as the user knows it. */
const char *real_file(const struct loader *l, const char *f) {
	for (size_t i = 0; f && i < l->n_copies; i++) /* (a few: the includes of one file) */
		if (strcmp(l->copies[i].name, f) == 0)
			return l->copies[i].path;
	return f;
}

static char *dir_of(const char *path) {
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/*
 * Reading files safely. libconfig 1.5 opens @include files itself with
 * fopen() and has no hook: a directory (or "") makes its flex scanner call
 * exit(2), a FIFO blocks the open for good. So every file is read here
 * first, as the daemon allows: a regular file (opened without blocking, so
 * a FIFO is refused instead of waited for), at most CONFIG_FILE_MAX bytes;
 * its @include directives (found as libconfig's scanner finds them: at the
 * start of a line, outside comments and strings) are checked the same way,
 * recursively, and rewritten to name an in-memory copy (a memfd, as
 * /proc/self/fd/N), so libconfig reads only what was checked, and cannot be
 * raced. Line numbers are kept; errors name the real files.
 *
 * Each @include directive gets a copy of its own, so a file that includes
 * a file twice which includes itself twice, and so on, would make 2^10
 * copies (3^10 with three, each an open memfd and an error): a file
 * follows at most INCLUDE_FILES_MAX @include directives, however nested.
 */
#define CONFIG_FILE_MAX (16u << 20)
#define INCLUDE_DEPTH_MAX 10 /* libconfig's own limit */
#define INCLUDE_FILES_MAX 64 /* (l->copies: these and the file itself) */

static const char *file_type_words(mode_t m) {
	return S_ISDIR(m)    ? "a directory"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
			     : "not a regular file";
}

/* The whole of a regular file; why: what is wrong with it otherwise. */
static int slurp(const char *path, char **ret, size_t *ret_len, char *why, size_t whylen) {
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap;
	struct stat st;

	if (fd < 0) {
		snprintf(why, whylen, "cannot read: %s", strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "cannot read: %s, not a regular file",
			 file_type_words(st.st_mode));
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > CONFIG_FILE_MAX) {
		snprintf(why, whylen, "cannot read: larger than %u MiB", CONFIG_FILE_MAX >> 20);
		return -EFBIG;
	}
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap + 1);
	for (;;) {
		ssize_t n;

		if (!buf)
			return -ENOMEM;
		if (len == cap) { /* it grew meanwhile */
			char *v = cap < CONFIG_FILE_MAX ? realloc(buf, 2 * cap + 1) : NULL;

			if (!v) {
				snprintf(why, whylen, "cannot read: larger than %u MiB",
					 CONFIG_FILE_MAX >> 20);
				return -EFBIG;
			}
			buf = v;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, whylen, "cannot read: %s", strerror(errno));
			return -EIO;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret = steal_ptr(&buf);
	*ret_len = len;
	return 0;
}

static int prepare_file(struct loader *l, const char *path, const char *dir, int depth,
			const char *from, int from_line);

/* At text[i] (a line's start, outside comments and strings): an @include
 * directive as libconfig's scanner sees it (`^[ \t]*@include[ \t]+"`, then
 * the name with \\ and \" escapes up to the closing quote)? Its name in
 * name, the index after the closing quote in *end; 0 if there is none,
 * -EINVAL (why) if it is malformed. */
static int include_at(const char *text, size_t len, size_t i, char *name, size_t namelen,
		      size_t *end, const char **why) {
	size_t j = i, n = 0;

	while (j < len && (text[j] == ' ' || text[j] == '\t'))
		j++;
	if (len - j < 8 || memcmp(text + j, "@include", 8) != 0)
		return 0;
	j += 8;
	if (j >= len || (text[j] != ' ' && text[j] != '\t'))
		return 0;
	while (j < len && (text[j] == ' ' || text[j] == '\t'))
		j++;
	if (j >= len || text[j] != '"')
		return 0;
	for (j++; j < len && text[j] != '"'; j++) {
		char c = text[j];

		if (c == '\\' && j + 1 < len && (text[j + 1] == '\\' || text[j + 1] == '"'))
			c = text[++j];
		if (c == '\n' || c == '\0') {
			*why = "the file name is not closed on its line";
			return -EINVAL;
		}
		if (n + 1 >= namelen) {
			*why = "the file name is too long";
			return -EINVAL;
		}
		name[n++] = c;
	}
	if (j >= len) {
		*why = "the file name is not closed";
		return -EINVAL;
	}
	name[n] = '\0';
	if (n == 0) {
		*why = "empty file name";
		return -EINVAL;
	}
	*end = j + 1;
	return 1;
}

/* text with its @include names replaced by their copies (prepare_file()),
 * written to f; false after errors were added. */
static bool rewrite_includes(struct loader *l, const char *path, const char *text, size_t len,
			     const char *dir, int depth, FILE *f) {
	enum { INITIAL, COMMENT, STRING } state = INITIAL;
	bool bol = true, ok = true;
	int line = 1;

	for (size_t i = 0; i < len;) {
		char name[PATH_MAX], full[PATH_MAX * 2];
		const char *why = NULL;
		size_t end = 0;
		int k, fd;

		if (state == INITIAL && bol) {
			bol = false;
			k = include_at(text, len, i, name, sizeof(name), &end, &why);
			if (k < 0) {
				add_error(l, path, line, "@include: %s", why);
				ok = false;
			} else if (k > 0) {
				/* libconfig: include_dir + "/" + name, also for an
				 * absolute name */
				snprintf(full, sizeof(full), "%s/%s", dir, name);
				fd = prepare_file(l, full, dir, depth + 1, path, line);
				if (fd < 0)
					ok = false;
				else
					fprintf(f, "@include \"/proc/self/fd/%d\"", fd);
				i = end;
				continue;
			}
		}
		switch (state) {
		case INITIAL:
			if (text[i] == '"')
				state = STRING;
			else if (text[i] == '/' && i + 1 < len && text[i + 1] == '*') {
				fputs("/*", f);
				i += 2;
				state = COMMENT;
				continue;
			} else if (text[i] == '#' ||
				   (text[i] == '/' && i + 1 < len && text[i + 1] == '/')) {
				const char *nl = memchr(text + i, '\n', len - i);
				size_t n = nl ? (size_t)(nl - (text + i)) : len - i;

				fwrite(text + i, 1, n, f);
				i += n;
				continue;
			}
			break;
		case STRING:
			if (text[i] == '\\' && i + 1 < len && text[i + 1] != '\n') {
				fputc(text[i++], f);
				break;
			}
			if (text[i] == '"')
				state = INITIAL;
			break;
		case COMMENT:
			if (text[i] == '*' && i + 1 < len && text[i + 1] == '/') {
				fputs("*/", f);
				i += 2;
				state = INITIAL;
				continue;
			}
			break;
		}
		if (text[i] == '\n') {
			line++;
			bol = true;
		}
		fputc(text[i++], f);
	}
	return ok;
}

/* A checked copy of path in memory, its includes rewritten (dir: where
 * they are found): the copy's fd, kept in l->copies until the end of
 * load_file(), or -1 after errors were added (about path itself: at from's
 * line from_line, its @include). */
static int prepare_file(struct loader *l, const char *path, const char *dir, int depth,
			const char *from, int from_line) {
	_cleanup_free_ char *text = NULL;
	char why[512];
	struct cfgcopy *v;
	size_t len = 0;
	bool ok;
	FILE *f;
	int fd, r;

	if (depth > INCLUDE_DEPTH_MAX) {
		add_error(l, from, from_line,
			  "@include \"%s\": nested more than %d deep (a cycle?)", P(path),
			  INCLUDE_DEPTH_MAX);
		return -1;
	}
	if (from && l->n_copies > INCLUDE_FILES_MAX) {
		if (!l->copies_full) /* (once: every @include left would say it) */
			add_error(l, from, from_line,
				  "@include \"%s\": more than %d includes in all (a cycle?)",
				  P(path), INCLUDE_FILES_MAX);
		l->copies_full = true;
		return -1;
	}
	r = slurp(path, &text, &len, why, sizeof(why));
	if (r < 0) {
		if (r == -ENOMEM)
			l->oom = true;
		else if (from)
			add_error(l, from, from_line, "@include \"%s\": %s", P(path), why);
		else
			add_error(l, path, 0, "%s", why);
		return -1;
	}
	fd = memfd_create("fsnotifyd-config", MFD_CLOEXEC);
	if (fd < 0) {
		add_error(l, path, 0, "cannot copy it to memory: %s", strerror(errno));
		return -1;
	}
	v = l_oom(l, realloc(l->copies, (l->n_copies + 1) * sizeof(*v)));
	if (!v) {
		close(fd);
		return -1;
	}
	l->copies = v;
	v = &l->copies[l->n_copies++];
	*v = (struct cfgcopy){ .fd = fd, .path = l_strdup(l, path) };
	snprintf(v->name, sizeof(v->name), "/proc/self/fd/%d", fd);
	f = fdopen(dup(fd), "w");
	if (!f) {
		l->oom = true;
		return -1;
	}
	ok = rewrite_includes(l, path, text, len, dir, depth, f);
	if (fclose(f) != 0) {
		add_error(l, path, 0, "cannot copy it to memory: %s", strerror(errno));
		ok = false;
	}
	return ok ? fd : -1;
}

static void copies_clear(struct loader *l) {
	for (size_t i = 0; i < l->n_copies; i++) {
		close(l->copies[i].fd);
		free(l->copies[i].path);
	}
	free(l->copies);
	l->copies = NULL;
	l->n_copies = 0;
	l->copies_full = false;
}

/*
 * libconfig 1.5 leaks what its parser had taken when a file does not parse
 * (bison without destructors: the strings read so far, up to the file's
 * size). A daemon reloading a broken file again and again would grow
 * without bound, so the file is first parsed by a child process, which
 * says whether it parses (and if not, where and why); only a file that
 * parses is parsed here. (glibc keeps malloc usable in a child forked from
 * a threaded process; the child uses nothing else but libconfig and
 * write().) A loader asked for CONFIG_LOAD_IN_PROCESS (conf.h: the fuzz
 * target) skips the child and accepts the leak.
 */
struct parse_verdict {
	int ok;   /* 1 parses, 0 does not, -1 the child failed */
	int line; /* the error's */
	char file[PATH_MAX];
	char text[256];
};

static void parse_in_child(int fd, struct parse_verdict *v) {
	int pipefd[2], status;
	pid_t pid;
	ssize_t n;

	*v = (struct parse_verdict){ .ok = -1 };
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return;
	}
	if (pid == 0) {
		struct parse_verdict r = { .ok = 0 };
		config_t cfg;
		FILE *f;

		close(pipefd[0]);
		f = lseek(fd, 0, SEEK_SET) == 0 ? fdopen(dup(fd), "r") : NULL;
		if (f) {
			config_init(&cfg);
			r.ok = config_read(&cfg, f) ? 1 : 0;
			if (!r.ok) {
				r.line = config_error_line(&cfg);
				snprintf(r.file, sizeof(r.file), "%s",
					 config_error_file(&cfg) ? config_error_file(&cfg) : "");
				snprintf(r.text, sizeof(r.text), "%s",
					 config_error_text(&cfg) ? config_error_text(&cfg) : "");
			}
		}
		/* exit_group itself: no atexit work, no sanitizer's leak check
		 * (libconfig's leak is why this is a child) */
		syscall(SYS_exit_group,
			f && write(pipefd[1], &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
		_exit(1);
	}
	close(pipefd[1]);
	do
		n = read(pipefd[0], v, sizeof(*v));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(*v) || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		*v = (struct parse_verdict){ .ok = -1 };
}

void load_file(struct loader *l, const char *path) {
	struct scope sc = { .l = l, .base = l->c, .out_type = -1 };
	_cleanup_free_ char *dir = dir_of(path);
	struct parse_verdict verdict;
	config_t cfg;
	FILE *f;
	int fd;

	l->file = path;
	fd = dir ? prepare_file(l, path, dir, 0, NULL, 0) : -1;
	if (!dir)
		l->oom = true;
	f = fd >= 0 && lseek(fd, 0, SEEK_SET) == 0 ? fdopen(dup(fd), "r") : NULL;
	if (!f) {
		if (fd >= 0)
			add_error(l, path, 0, "cannot read its copy: %s", strerror(errno));
		l->unreadable = true;
		copies_clear(l);
		l->file = NULL;
		return;
	}
	if (!l->in_process) {
		parse_in_child(fd, &verdict);
		if (verdict.ok == 0) {
			add_error(l, verdict.file[0] ? real_file(l, verdict.file) : path,
				  verdict.line, "%s", verdict.text);
			l->unreadable = true;
			fclose(f);
			copies_clear(l);
			l->file = NULL;
			return;
		}
		/* (ok, or the child could not tell: parse here; the child read
		 * the copy through the same file description) */
		rewind(f);
	}
	/* (CONFIG_LOAD_IN_PROCESS: here only; what a file that does not
	 * parse leaks is the caller's choice) */
	config_init(&cfg); /* (no include_dir: the includes name their copies) */
	if (!config_read(&cfg, f)) {
		add_error(l, config_error_file(&cfg) ? real_file(l, config_error_file(&cfg)) : path,
			  config_error_line(&cfg), "%s", config_error_text(&cfg));
		l->unreadable = true;
	} else
		read_group(&sc, &top_table, config_root_setting(&cfg));
	config_destroy(&cfg);
	fclose(f);
	copies_clear(l);
	l->file = NULL;
}

static int compare_names(const void *a, const void *b) {
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_dropin_name(const char *n) {
	size_t len = strlen(n);

	return n[0] != '.' && len > 5 && strcmp(n + len - 5, ".conf") == 0;
}

/* <dir of path>/conf.d/ *.conf, regular files, sorted bytewise. */
void find_dropins(struct loader *l, const char *path) {
	struct config *c = l->c;
	_cleanup_free_ char *dir = dir_of(path), *d = NULL;
	_cleanup_closedir_ DIR *dp = NULL;
	struct dirent *de;

	if (!dir || asprintf(&d, "%s/conf.d", dir) < 0) {
		l->oom = true;
		return;
	}
	dp = opendir(d);
	if (!dp) {
		if (errno != ENOENT && errno != ENOTDIR)
			add_error(l, d, 0, "cannot read the drop-in directory: %s",
				  strerror(errno));
		return;
	}
	while ((de = readdir(dp))) {
		_cleanup_free_ char *p = NULL;
		struct stat st;
		char **v;

		if (!is_dropin_name(de->d_name))
			continue;
		if (asprintf(&p, "%s/%s", d, de->d_name) < 0) {
			l->oom = true;
			break;
		}
		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		v = l_oom(l, realloc(c->dropins, (c->n_dropins + 1) * sizeof(*v)));
		if (!v)
			break;
		c->dropins = v;
		c->dropins[c->n_dropins++] = steal_ptr(&p);
	}
	if (c->n_dropins > 1)
		qsort(c->dropins, c->n_dropins, sizeof(char *), compare_names);
}
