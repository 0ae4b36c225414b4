/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proc.h — what the daemon learns about the process behind an event, from
 * /proc/PID (read lazily, once per event): its name, effective uid and
 * gid, parent, and executable. Only procfs is read, never a file the
 * daemon might be watching.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_info {
	pid_t pid;
	bool have_comm, comm_ok;
	bool have_status, status_ok;
	bool have_exe, exe_ok;
	bool have_login, login_ok;
	bool have_cgroup, cgroup_ok;
	bool have_mntns, mntns_ok;
	bool have_pcomm, pcomm_ok;
	bool exe_deleted; /* the executable was deleted or replaced since it started */
	char comm[64];
	char pcomm[64]; /* the parent's comm */
	uid_t uid;      /* effective */
	gid_t gid;      /* effective */
	pid_t ppid;
	uint32_t login_uid;  /* the audit login uid (loginuid; -1: none, never logged in) */
	uint32_t session;    /* the audit session (sessionid; -1: none) */
	uint64_t mntns;      /* its mount namespace (the inode of /proc/PID/ns/mnt) */
	char unit[256];      /* the systemd unit its cgroup names ("" if none) */
	char slice[256];     /* the slice above that unit ("" if none) */
	char container[160]; /* "docker://ID", "containerd://ID", "cri-o://ID",
			      * "podman://ID", "machine://NAME" ("" if none) */
	char exe[PATH_MAX];
};

/* Start knowing nothing about pid (<= 0: unknown process). */
void proc_info_init(struct proc_info *p, pid_t pid);
/* The process name, NULL if unknown (gone). */
const char *proc_info_comm(struct proc_info *p);
/* uid, gid and ppid are valid (from /proc/PID/status). */
bool proc_info_status(struct proc_info *p);
/* The parent's process name (/proc/PPID/comm), NULL if unknown. */
const char *proc_info_parent_comm(struct proc_info *p);
/* login_uid and session are valid (from /proc/PID/loginuid and
 * sessionid: the audit values, which setuid(), sudo and su keep). */
bool proc_info_login(struct proc_info *p);
/* unit, slice and container are valid (from /proc/PID/cgroup: the
 * cgroup v2 line, else the name=systemd one; see proc_cgroup_parse()). */
bool proc_info_cgroup(struct proc_info *p);
/* mntns is valid (/proc/PID/ns/mnt). */
bool proc_info_mntns(struct proc_info *p);
/* What a cgroup path says, as systemd names it: the unit is the first
 * component after the slices (a *.service, *.scope...), the slice the last
 * *.slice above it; a container is a scope its runtime names (docker-ID,
 * cri-containerd-ID, crio-ID, libpod-ID, machine-NAME for
 * systemd-nspawn, with systemd's \x2d unescaped) or a /docker/ID
 * directory. Pure; the unit tests' entry. */
void proc_cgroup_parse(const char *path, struct proc_info *p);
/* The executable's path (readlink /proc/PID/exe, without the kernel's
 * " (deleted)" suffix: exe_deleted says so), NULL if unknown (gone, a kernel
 * thread). */
const char *proc_info_exe(struct proc_info *p);
/* Who p is beyond pid, comm and uid (a rule's who: fsn-record.h), each
 * field read as needed; strings are p's. Unknown (p NULL, gone): -1, NULL,
 * 0. */
struct record_who;
void proc_info_who(struct proc_info *p, struct record_who *ret);

/* A rule's process filters: pid in pids, comm in comms, effective uid in
 * uids; an empty list lets every process through. p may be NULL (no
 * process known): then only empty lists pass. */
bool proc_filters_match(struct proc_info *p, const pid_t *pids, size_t n_pids, char *const *comms,
			size_t n_comms, const uid_t *uids, size_t n_uids);
