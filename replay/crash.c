/* SPDX-License-Identifier: MIT */
/*
 * A plugin that cannot run in this process, or that crashes in it, gets
 * a message and an exit status of its own (cthelper-replay(1), EXIT
 * STATUS) rather than the status of "the output differs":
 *  - a plugin built with AddressSanitizer (or ThreadSanitizer) needs its
 *    runtime loaded before anything else; dlopen()ing it into a process
 *    without one makes the runtime end the process ("ASan runtime does
 *    not come first").  The plugin's DT_NEEDED entries are read before it
 *    is loaded, and the fix is said instead: preload the runtime, or use
 *    a replay built with the sanitizers.
 *  - a fatal signal (not already taken by a sanitizer, whose handler
 *    reports it), and a sanitizer's report, whose death callback is
 *    called before it exits, end the run with RP_EXIT_CRASH.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "replay.h"

/* The sanitizer runtimes that must come first, and their entry point. */
static const struct {
	const char *lib;            /* a DT_NEEDED name starting so */
	const char *init;           /* a symbol present once it is loaded */
	const char *what;
} rp_crash_runtimes[] = {
	{ "libasan.so", "__asan_init", "AddressSanitizer" },
	{ "libclang_rt.asan", "__asan_init", "AddressSanitizer" },
	{ "libhwasan.so", "__hwasan_init", "HWAddressSanitizer" },
	{ "libtsan.so", "__tsan_init", "ThreadSanitizer" },
	{ "libclang_rt.tsan", "__tsan_init", "ThreadSanitizer" },
};

static const unsigned long *rp_crash_frame;

static int rp_crash_needed(const char *file, char names[][64], size_t max, size_t *n);
static void rp_crash_signal(int sig);
static void rp_crash_died(void);
static int rp_crash_callbacks(struct dl_phdr_info *info, size_t size, void *arg);
static void rp_crash_say(const char *what);

int rp_crash_runtime_check(const char *plugin)
{
	char needed[32][64];
	size_t n = 0;

	if (rp_crash_needed(plugin, needed, 32, &n) < 0)
		return 0;       /* not an ELF we read: the loader will say why */
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < sizeof(rp_crash_runtimes) / sizeof(rp_crash_runtimes[0]); k++) {
			if (strncmp(needed[i], rp_crash_runtimes[k].lib,
				    strlen(rp_crash_runtimes[k].lib)) != 0 ||
			    dlsym(RTLD_DEFAULT, rp_crash_runtimes[k].init))
				continue;
			fprintf(stderr,
				"%s: %s was built with %s and needs its runtime %s loaded before "
				"anything else, which this %s was not built with; run it as\n"
				"  LD_PRELOAD=$(cc -print-file-name=%s) %s ...\n"
				"or with a replay built with the sanitizers (in the source tree: "
				"make replay-asan, then build-asan/cthelper-replay); see "
				"cthelper-replay(1), SANITIZERS\n",
				log_program(), plugin, rp_crash_runtimes[k].what, needed[i],
				log_program(), needed[i], log_program());
			return -ENOEXEC;
		}
	}
	return 0;
}

void rp_crash_arm(const unsigned long *frame)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	struct sigaction sa = { .sa_handler = rp_crash_signal };

	rp_crash_frame = frame;
	/* a sanitizer's handler reports more: leave it, and hear its end */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
	}
	dl_iterate_phdr(rp_crash_callbacks, NULL);
}

/* Each loaded sanitizer runtime (the process's, the plugin's own
 * libubsan) calls back before it ends the process. */
static int rp_crash_callbacks(struct dl_phdr_info *info, size_t size, void *arg)
{
	void (*set)(void (*)(void));
	void *h;

	(void)size;
	(void)arg;
	if (!info->dlpi_name || (!strstr(info->dlpi_name, "san.so") &&
				 !strstr(info->dlpi_name, "libclang_rt.")))
		return 0;
	h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return 0;
	*(void **)&set = dlsym(h, "__sanitizer_set_death_callback");
	if (set)
		set(rp_crash_died);
	dlclose(h);
	return 0;
}

static void rp_crash_died(void)
{
	rp_crash_say("failed a sanitizer's check (its report is above)");
	_exit(RP_EXIT_CRASH);
}

static void rp_crash_signal(int sig)
{
	rp_crash_say(sig == SIGABRT ? "aborted (SIGABRT)" : sig == SIGSEGV ? "crashed (SIGSEGV)"
		     : sig == SIGBUS ? "crashed (SIGBUS)" : sig == SIGILL ? "crashed (SIGILL)"
		     : "crashed (SIGFPE)");
	_exit(RP_EXIT_CRASH);
}

/* "PROGRAM: the plugin (or the replay) WHAT while replaying frame N",
 * with write(2) only: it may run in a signal handler. */
static void rp_crash_say(const char *what)
{
	char num[24], *p = num + sizeof(num);
	unsigned long f = rp_crash_frame ? *rp_crash_frame : 0;
	const char *prog = log_program();

	*--p = 0;
	do
		*--p = (char)('0' + f % 10);
	while ((f /= 10) && p > num);
	if (write(2, prog, strlen(prog)) < 0 ||
	    write(2, ": the plugin (or the replay) ", 29) < 0 ||
	    write(2, what, strlen(what)) < 0 ||
	    write(2, " while replaying frame ", 23) < 0 || write(2, p, strlen(p)) < 0)
		return;
	(void)!write(2, "\n", 1);
}

/*
 * The DT_NEEDED names of an ELF file of this process's class: from the
 * dynamic segment, with the string table's address turned into a file
 * offset through the loadable segments.
 */
static int rp_crash_needed(const char *file, char names[][64], size_t max, size_t *n)
{
	FILE *fp = fopen(file, "rb");
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph, dyn = { 0 }, load[16];
	size_t n_load = 0, strtab = 0, off;
	ElfW(Dyn) d;
	long needed[32];
	size_t n_needed = 0;
	int rc = -EINVAL;

	*n = 0;
	if (!fp)
		return -errno;
	if (fread(&eh, sizeof(eh), 1, fp) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh.e_phentsize != sizeof(ph))
		goto out;
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		if (fseek(fp, (long)(eh.e_phoff + (ElfW(Off))i * sizeof(ph)), SEEK_SET) ||
		    fread(&ph, sizeof(ph), 1, fp) != 1)
			goto out;
		if (ph.p_type == PT_DYNAMIC)
			dyn = ph;
		else if (ph.p_type == PT_LOAD && n_load < 16)
			load[n_load++] = ph;
	}
	for (off = 0; dyn.p_filesz && off + sizeof(d) <= dyn.p_filesz; off += sizeof(d)) {
		if (fseek(fp, (long)(dyn.p_offset + off), SEEK_SET) || fread(&d, sizeof(d), 1, fp) != 1)
			goto out;
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_STRTAB)
			strtab = d.d_un.d_ptr;
		else if (d.d_tag == DT_NEEDED && n_needed < 32)
			needed[n_needed++] = (long)d.d_un.d_val;
	}
	for (size_t i = 0; i < n_load; i++) {
		if (strtab < load[i].p_vaddr || strtab >= load[i].p_vaddr + load[i].p_filesz)
			continue;
		strtab = strtab - load[i].p_vaddr + load[i].p_offset;
		for (size_t k = 0; k < n_needed && *n < max; k++) {
			if (fseek(fp, (long)strtab + needed[k], SEEK_SET) ||
			    !fgets(names[*n], 64, fp))
				continue;
			names[*n][strcspn(names[*n], "\n")] = 0;
			(*n)++;
		}
		rc = 0;
		break;
	}
out:
	fclose(fp);
	return rc;
}
