/* SPDX-License-Identifier: GPL-2.0-or-later */
/* proc.c — see proc.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsn-record.h"
#include "proc.h"
#include "util.h"

void proc_info_init(struct proc_info *p, pid_t pid) {
	p->pid = pid;
	p->have_comm = p->comm_ok = false;
	p->have_status = p->status_ok = false;
	p->have_exe = p->exe_ok = p->exe_deleted = false;
	p->have_login = p->login_ok = false;
	p->have_cgroup = p->cgroup_ok = p->have_mntns = p->mntns_ok = false;
	p->have_pcomm = p->pcomm_ok = false;
	p->unit[0] = p->slice[0] = p->container[0] = '\0';
	p->mntns = 0;
	p->login_uid = p->session = (uint32_t)-1;
	p->uid = (uid_t)-1;
	p->gid = (gid_t)-1;
	p->ppid = 0;
}

/* /proc/PID/comm into out (64 bytes), without its newline; or false. */
static bool read_comm(pid_t pid, char *out, size_t len) {
	char path[64], buf[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	n = read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return false;
	if (buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	snprintf(out, len, "%s", buf);
	return true;
}

const char *proc_info_comm(struct proc_info *p) {
	if (!p || p->pid <= 0)
		return NULL;
	if (!p->have_comm) {
		p->have_comm = true;
		p->comm_ok = read_comm(p->pid, p->comm, sizeof(p->comm));
	}
	return p->comm_ok ? p->comm : NULL;
}

const char *proc_info_parent_comm(struct proc_info *p) {
	if (!proc_info_status(p) || p->ppid <= 0)
		return NULL;
	if (!p->have_pcomm) {
		p->have_pcomm = true;
		p->pcomm_ok = read_comm(p->ppid, p->pcomm, sizeof(p->pcomm));
	}
	return p->pcomm_ok ? p->pcomm : NULL;
}

bool proc_info_status(struct proc_info *p) {
	char path[64], buf[4096];
	const char *l;

	if (!p || p->pid <= 0)
		return false;
	if (!p->have_status) {
		unsigned long real, eff;
		int ppid;

		p->have_status = true;
		snprintf(path, sizeof(path), "/proc/%d/status", (int)p->pid);
		if (read_small(path, buf, sizeof(buf)) <= 0)
			return false;
		l = strstr(buf, "\nUid:");
		if (!l || sscanf(l + 5, "%lu %lu", &real, &eff) != 2)
			return false;
		p->uid = (uid_t)eff;
		l = strstr(buf, "\nGid:");
		if (!l || sscanf(l + 5, "%lu %lu", &real, &eff) != 2)
			return false;
		p->gid = (gid_t)eff;
		l = strstr(buf, "\nPPid:");
		if (l && sscanf(l + 6, "%d", &ppid) == 1)
			p->ppid = ppid;
		p->status_ok = true;
	}
	return p->status_ok;
}

/* A /proc/PID file holding one unsigned number: true and *v, or false. */
static bool read_u32(pid_t pid, const char *name, uint32_t *v) {
	char path[64], buf[32], *end;
	unsigned long n;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	errno = 0;
	n = strtoul(buf, &end, 10);
	if (errno || end == buf || n > UINT32_MAX)
		return false;
	*v = (uint32_t)n;
	return true;
}

bool proc_info_login(struct proc_info *p) {
	if (!p || p->pid <= 0)
		return false;
	if (!p->have_login) {
		p->have_login = true;
		p->login_ok = read_u32(p->pid, "loginuid", &p->login_uid) &&
			      read_u32(p->pid, "sessionid", &p->session);
	}
	return p->login_ok;
}

/* Whether the n bytes at s end in suffix. */
static bool has_suffix(const char *s, size_t n, const char *suffix) {
	size_t k = strlen(suffix);

	return n > k && memcmp(s + n - k, suffix, k) == 0;
}

/* The container a cgroup component names, into p->container; or false. */
static bool container_named(const char *c, size_t n, struct proc_info *p) {
	static const struct {
		const char *prefix, *runtime;
	} scopes[] = {
		{ "docker-", "docker" }, { "cri-containerd-", "containerd" }, { "crio-", "cri-o" },
		{ "libpod-", "podman" }, { "machine-", "machine" },
	};

	if (!has_suffix(c, n, ".scope"))
		return false;
	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		size_t k = strlen(scopes[i].prefix);
		size_t pos, idl = n - strlen(".scope") - k;
		const char *id = c + k;

		if (n <= k + strlen(".scope") || memcmp(c, scopes[i].prefix, k) != 0)
			continue;
		pos = (size_t)snprintf(p->container, sizeof(p->container), "%s://",
				       scopes[i].runtime);
		/* systemd escapes '-' in a machine name as \x2d */
		for (size_t j = 0; j < idl && pos + 1 < sizeof(p->container); j++) {
			if (idl - j >= 4 && memcmp(id + j, "\\x2d", 4) == 0) {
				p->container[pos++] = '-';
				j += 3;
			} else
				p->container[pos++] = id[j];
		}
		p->container[pos] = '\0';
		return true;
	}
	return false;
}

void proc_cgroup_parse(const char *path, struct proc_info *p) {
	const char *c = path;
	bool in_unit = false, docker_dir = false;

	p->unit[0] = p->slice[0] = p->container[0] = '\0';
	while (*c) {
		size_t n;

		c += strspn(c, "/");
		n = strcspn(c, "/");
		if (n == 0)
			break;
		if (docker_dir && !p->container[0] && n < sizeof(p->container) - 9)
			snprintf(p->container, sizeof(p->container), "docker://%.*s", (int)n, c);
		docker_dir = n == 6 && memcmp(c, "docker", 6) == 0;
		if (!p->container[0])
			container_named(c, n, p);
		if (!in_unit && has_suffix(c, n, ".slice")) {
			if (n < sizeof(p->slice))
				snprintf(p->slice, sizeof(p->slice), "%.*s", (int)n, c);
		} else if (!in_unit) {
			in_unit = true; /* (the first component after the slices) */
			if (c[0] != '.' && memchr(c, '.', n) && n < sizeof(p->unit))
				snprintf(p->unit, sizeof(p->unit), "%.*s", (int)n, c);
		}
		c += n;
	}
}

bool proc_info_cgroup(struct proc_info *p) {
	char path[64], buf[4096];
	const char *v2 = NULL, *v1 = NULL;

	if (!p || p->pid <= 0)
		return false;
	if (!p->have_cgroup) {
		p->have_cgroup = true;
		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)p->pid);
		if (read_small(path, buf, sizeof(buf)) <= 0)
			return false;
		/* "0::/a/b" (cgroup v2), else "N:name=systemd:/a/b" */
		for (char *l = buf, *nl; l && *l; l = nl ? nl + 1 : NULL) {
			const char *q;

			nl = strchr(l, '\n');
			if (nl)
				*nl = '\0';
			if (strncmp(l, "0::", 3) == 0)
				v2 = l + 3;
			else if (!v1 && (q = strstr(l, ":name=systemd:")))
				v1 = q + strlen(":name=systemd:");
		}
		if (!v2 && !v1)
			return false;
		proc_cgroup_parse(v2 ? v2 : v1, p);
		p->cgroup_ok = true;
	}
	return p->cgroup_ok;
}

bool proc_info_mntns(struct proc_info *p) {
	char path[64], link[64];
	ssize_t n;

	if (!p || p->pid <= 0)
		return false;
	if (!p->have_mntns) {
		unsigned long long ino;

		p->have_mntns = true;
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)p->pid);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			if (sscanf(link, "mnt:[%llu]", &ino) == 1) {
				p->mntns = ino;
				p->mntns_ok = true;
			}
		}
	}
	return p->mntns_ok;
}

const char *proc_info_exe(struct proc_info *p) {
	char path[64];
	ssize_t n;

	if (!p || p->pid <= 0)
		return NULL;
	if (!p->have_exe) {
		p->have_exe = true;
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
		n = readlink(path, p->exe, sizeof(p->exe) - 1);
		if (n > 0) {
			static const char deleted[] = " (deleted)";
			size_t d = sizeof(deleted) - 1;

			p->exe[n] = '\0';
			/* a program deleted (or replaced) since it started is still
			 * the program it was: match it by that name */
			if ((size_t)n > d && strcmp(p->exe + n - d, deleted) == 0) {
				p->exe[n - d] = '\0';
				p->exe_deleted = true;
			}
			p->exe_ok = true;
		}
	}
	return p->exe_ok ? p->exe : NULL;
}

bool proc_filters_match(struct proc_info *p, const pid_t *pids, size_t n_pids, char *const *comms,
			size_t n_comms, const uid_t *uids, size_t n_uids) {
	const char *comm;
	bool ok;

	if (n_pids > 0) {
		ok = false;
		for (size_t i = 0; i < n_pids && !ok; i++)
			ok = p && p->pid > 0 && pids[i] == p->pid;
		if (!ok)
			return false;
	}
	if (n_comms > 0) {
		comm = proc_info_comm(p);
		ok = false;
		for (size_t i = 0; i < n_comms && !ok; i++)
			ok = comm && strcmp(comms[i], comm) == 0;
		if (!ok)
			return false;
	}
	if (n_uids > 0) {
		ok = false;
		if (proc_info_status(p))
			for (size_t i = 0; i < n_uids && !ok; i++)
				ok = uids[i] == p->uid;
		if (!ok)
			return false;
	}
	return true;
}

void proc_info_who(struct proc_info *p, struct record_who *ret) {
	*ret = (struct record_who){
		.login_uid = (uint32_t)-1,
		.session = (uint32_t)-1,
		.exe = proc_info_exe(p),
		.parent_comm = proc_info_parent_comm(p),
	};
	if (proc_info_login(p)) {
		ret->login_uid = p->login_uid;
		ret->session = p->session;
	}
	if (proc_info_status(p) && p->ppid > 0)
		ret->ppid = p->ppid;
	if (proc_info_mntns(p))
		ret->mntns = p->mntns;
	if (proc_info_cgroup(p)) {
		ret->unit = p->unit[0] ? p->unit : NULL;
		ret->slice = p->slice[0] ? p->slice : NULL;
		ret->container = p->container[0] ? p->container : NULL;
	}
}
