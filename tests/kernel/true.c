/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * true.c — the program the execve cases run: exit_group(0), nothing else.
 * Built static without libc (a few hundred bytes) and embedded in
 * fsn-selftest (true-bytes.c), so an exec costs the kernel's part only:
 * no interpreter, no libraries, no relocations (in an emulated guest a
 * dynamically linked /bin/true costs tens of ms per exec). Where it is not
 * built, fst_copy_true() copies /bin/true instead.
 */
void _start(void);

void _start(void) {
#if defined(__x86_64__)
	__asm__ volatile("mov $231, %eax\n\txor %edi, %edi\n\tsyscall");
#elif defined(__aarch64__)
	__asm__ volatile("mov x8, #94\n\tmov x0, #0\n\tsvc #0");
#else
#error "no exit_group for this architecture"
#endif
	for (;;)
		;
}
