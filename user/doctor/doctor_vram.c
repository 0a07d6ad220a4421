// SPDX-License-Identifier: GPL-2.0
/*
 * doctor: each NVIDIA GPU's VRAM and BAR1 totals, from nvidia-smi -q -d
 * MEMORY.  The command is $P2PMAP_NVIDIA_SMI (a copy of another host's
 * output in the tests); nvidia-smi from PATH on the host itself.  Another
 * host's files (--root) are never judged by this host's nvidia-smi.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "doctor_int.h"

#define VRAM_TIMEOUT_S	20

/*
 *   GPU 00000000:01:00.0
 *       FB Memory Usage
 *           Total                             : 23028 MiB
 *       BAR1 Memory Usage
 *           Total                             : 32768 MiB
 */
static int vram_parse(FILE *f, struct vram *v, size_t max)
{
	unsigned int dom, bus, dev, fn;
	unsigned long long mib;
	char line[256], *p;
	int n = -1, sect = 0;		/* 1 FB, 2 BAR1 */

	while (fgets(line, sizeof(line), f)) {
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (sscanf(p, "GPU %x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4) {
			if (n + 1 == (int)max)
				break;
			n++;
			memset(&v[n], 0, sizeof(v[n]));
			snprintf(v[n].addr, sizeof(v[n].addr),
				 "%04x:%02x:%02x.%x", dom & 0xffff, bus & 0xff,
				 dev & 0x1f, fn & 7);
			sect = 0;
		} else if (!strncmp(p, "FB Memory Usage", 15)) {
			sect = 1;
		} else if (!strncmp(p, "BAR1 Memory Usage", 17)) {
			sect = 2;
		} else if (!strchr(p, ':')) {
			sect = 0;
		} else if (n >= 0 && sect && !strncmp(p, "Total", 5) &&
			   /* it has a ':' (the branch above) */
			   sscanf(strchr(p, ':') + 1, "%llu MiB", &mib) == 1) {
			if (sect == 1)
				v[n].fb = mib;
			else
				v[n].bar1 = mib;
		}
	}
	return n + 1;
}

int doctor_vram_read(const struct host *h, struct vram *v, size_t max,
		     char *why, size_t len)
{
	const char *cmd = getenv(VRAM_ENV);
	int fds[2], status, n, null;
	FILE *f;
	pid_t pid;

	if (!cmd || !*cmd) {
		if (h->root[0]) {
			snprintf(why, len,
				 "nvidia-smi is not run for another host's files (--root); %s names a command that prints its nvidia-smi -q -d MEMORY",
				 VRAM_ENV);
			return -1;
		}
		cmd = "nvidia-smi";
	}
	if (pipe(fds)) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		null = open("/dev/null", O_RDWR);
		dup2(fds[1], 1);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 2);
		}
		close(fds[0]);
		/* A wedged GPU can hang nvidia-smi: the alarm outlives exec. */
		alarm(VRAM_TIMEOUT_S);
		execlp(cmd, cmd, "-q", "-d", "MEMORY", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	n = f ? vram_parse(f, v, max) : 0;
	if (f)
		fclose(f);
	else
		close(fds[0]);
	if (waitpid(pid, &status, 0) < 0)
		status = -1;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
		snprintf(why, len, "%s -q -d MEMORY did not answer in %d s",
			 cmd, VRAM_TIMEOUT_S);
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		snprintf(why, len, "%s cannot be run (not installed?)", cmd);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(why, len, "%s -q -d MEMORY failed (exit %d)", cmd,
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -1;
	}
	if (!n) {
		snprintf(why, len, "%s -q -d MEMORY named no GPU", cmd);
		return -1;
	}
	return n;
}
