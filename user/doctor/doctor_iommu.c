// SPDX-License-Identifier: GPL-2.0
/* doctor: the kernel command line, the active IOMMU, SEV-SNP and TDX. */
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

void check_iommu(struct host *h)
{
	char cmdline[4096], path[PATH_MAX];
	const char *kind = NULL;
	struct dirent *e;
	DIR *d;

	if (!rd(h, cmdline, sizeof(cmdline), "/proc/cmdline")) {
		add(h, "iommu.cmdline", DOCTOR_SKIP, NULL,
		    "/proc/cmdline cannot be read");
	} else if (has_word(cmdline, "iommu=pt") ||
		   has_word(cmdline, "amd_iommu=pt")) {
		h->pt = true;
		add(h, "iommu.cmdline", DOCTOR_WARN,
		    "drop iommu=pt where SEV-SNP or device isolation matters, and map the peers with p2pmap",
		    "iommu=pt on the kernel command line: devices sit in identity domains (P2P needs no mapping, but DMA is not isolated)");
	} else if (has_word(cmdline, "amd_iommu=off") ||
		   has_word(cmdline, "intel_iommu=off")) {
		add(h, "iommu.cmdline", DOCTOR_WARN, NULL,
		    "the IOMMU is off on the kernel command line: no translation, no isolation");
	} else {
		add(h, "iommu.cmdline", DOCTOR_OK, NULL,
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
		add(h, "iommu.driver", DOCTOR_OK, NULL, "%s is active (/sys/class/iommu)",
		    kind);
	else
		add(h, "iommu.driver", DOCTOR_WARN, NULL,
		    "no IOMMU in /sys/class/iommu: peers need no mapping, and nothing isolates DMA");
}

void check_cc(struct host *h)
{
	char v[16];
	struct doctor_check *c;

	h->snp = rd(h, v, sizeof(v), "/sys/module/kvm_amd/parameters/sev_snp") &&
		 (v[0] == 'Y' || v[0] == '1');
	h->tdx = rd(h, v, sizeof(v), "/sys/module/kvm_intel/parameters/tdx") &&
		 (v[0] == 'Y' || v[0] == '1');
	if (!h->snp && !h->tdx) {
		add(h, "cc", DOCTOR_OK, NULL,
		    "no SEV-SNP or TDX host support enabled (kvm_amd sev_snp, kvm_intel tdx)");
		return;
	}
	if (h->pt) {
		c = add(h, "cc", DOCTOR_FAIL,
			"remove iommu=pt: keep translation and map the peers with p2pmap",
			"%s is on, and iommu=pt puts devices in identity domains, which it does not support",
			h->snp ? "SEV-SNP" : "TDX");
		blocking(c);
		return;
	}
	add(h, "cc", DOCTOR_OK, NULL,
	    "%s is on: the IOMMU must keep translating (no iommu=pt, no identity groups); p2pmap maps the peers inside the default domains",
	    h->snp ? "SEV-SNP" : "TDX");
}
