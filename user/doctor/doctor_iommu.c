// SPDX-License-Identifier: GPL-2.0
/* doctor: the kernel command line, the active IOMMU, SEV-SNP and TDX, SME. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "doctor_int.h"

/* Is @word a whole word of @line? */
static bool has_word(const char *line, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(line, word); p; p = strstr(p + 1, word))
		if ((p == line || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

void doctor_check_iommu(struct host *h)
{
	char cmdline[4096], path[PATH_MAX];
	const char *kind = NULL;
	struct dirent *e;
	DIR *d;

	if (!doctor_read(h, cmdline, sizeof(cmdline), "/proc/cmdline")) {
		doctor_add(h, "iommu.cmdline", DOCTOR_SKIP, NULL,
			   "/proc/cmdline cannot be read");
	} else if (has_word(cmdline, "iommu=pt") ||
		   has_word(cmdline, "amd_iommu=pt")) {
		h->pt = true;
		doctor_add(h, "iommu.cmdline", DOCTOR_WARN,
			   "drop iommu=pt where SEV-SNP or device isolation matters, and map the peers with p2pmap",
			   "iommu=pt on the kernel command line: devices sit in identity domains (P2P needs no mapping, but DMA is not isolated)");
	} else if (has_word(cmdline, "amd_iommu=off") ||
		   has_word(cmdline, "intel_iommu=off")) {
		doctor_add(h, "iommu.cmdline", DOCTOR_WARN, NULL,
			   "the IOMMU is off on the kernel command line: no translation, no isolation");
	} else {
		doctor_add(h, "iommu.cmdline", DOCTOR_OK, NULL,
			   "no iommu=pt and no IOMMU off on the kernel command line");
	}

	snprintf(path, sizeof(path), "%s/sys/class/iommu", h->root);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (!strncmp(e->d_name, "ivhd", 4))
			kind = "AMD-Vi";
		else if (!strncmp(e->d_name, "dmar", 4))
			kind = "VT-d";
	}
	if (d)
		closedir(d);
	if (kind)
		doctor_add(h, "iommu.driver", DOCTOR_OK, NULL,
			   "%s is active (/sys/class/iommu)", kind);
	else
		doctor_add(h, "iommu.driver", DOCTOR_WARN, NULL,
			   "no IOMMU in /sys/class/iommu: peers need no mapping, and nothing isolates DMA");
}

/*
 * AMD SME (mem_encrypt=on): kernels before 6.19.4 set the C-bit on the
 * IOMMU PTEs of MMIO too, which AMD requires clear, and p2pmap then maps
 * nothing.  The module's own word when it is loaded, else the command
 * line's.
 */
static void check_sme(struct host *h, const char *cmdline)
{
	const char *fix = "boot without mem_encrypt=on, or a kernel with upstream e2692c4eeaa4 (Linux 7.0, 6.19.4)";
	char v[16];

	if (doctor_read(h, v, sizeof(v), "/sys/kernel/p2pmap/sme")) {
		if (!strcmp(v, "refused"))
			doctor_blocking(doctor_add(h, "cc.sme", DOCTOR_FAIL, fix,
						   "SME is active (mem_encrypt=on) and this kernel's AMD IOMMU page table sets the C-bit on MMIO PTEs: p2pmap maps no peer BAR"));
		else if (!strcmp(v, "mmio_plain"))
			doctor_add(h, "cc.sme", DOCTOR_OK, NULL,
				   "SME is active; this kernel leaves MMIO PTEs without the C-bit, so p2pmap maps");
		else
			doctor_add(h, "cc.sme", DOCTOR_OK, NULL,
				   "SME is not active (p2pmap says so)");
	} else if (cmdline && has_word(cmdline, "mem_encrypt=on")) {
		doctor_add(h, "cc.sme", DOCTOR_WARN, fix,
			   "mem_encrypt=on: with SME active, kernels before 6.19.4 set the C-bit on MMIO PTEs and p2pmap refuses to map (load p2pmap: /sys/kernel/p2pmap/sme says which)");
	} else {
		doctor_add(h, "cc.sme", DOCTOR_OK, NULL,
			   "SME not asked for (no mem_encrypt=on on the kernel command line)");
	}
}

void doctor_check_cc(struct host *h)
{
	char v[16], cmdline[4096];
	struct doctor_check *c;

	check_sme(h, doctor_read(h, cmdline, sizeof(cmdline), "/proc/cmdline") ?
		  cmdline : NULL);
	h->snp = doctor_read(h, v, sizeof(v),
			     "/sys/module/kvm_amd/parameters/sev_snp") &&
		 (v[0] == 'Y' || v[0] == '1');
	h->tdx = doctor_read(h, v, sizeof(v),
			     "/sys/module/kvm_intel/parameters/tdx") &&
		 (v[0] == 'Y' || v[0] == '1');
	if (!h->snp && !h->tdx) {
		doctor_add(h, "cc", DOCTOR_OK, NULL,
			   "no SEV-SNP or TDX host support enabled (kvm_amd sev_snp, kvm_intel tdx)");
		return;
	}
	if (h->pt) {
		c = doctor_add(h, "cc", DOCTOR_FAIL,
			       "remove iommu=pt: keep translation and map the peers with p2pmap",
			       "%s is on, and iommu=pt puts devices in identity domains, which it does not support",
			       h->snp ? "SEV-SNP" : "TDX");
		doctor_blocking(c);
		return;
	}
	doctor_add(h, "cc", DOCTOR_OK, NULL,
		   "%s is on: the IOMMU must keep translating (no iommu=pt, no identity groups); p2pmap maps the peers inside the default domains",
		   h->snp ? "SEV-SNP" : "TDX");
}
