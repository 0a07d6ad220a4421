// SPDX-License-Identifier: GPL-2.0
/*
 * "p2pmap doctor" (doctor.h): the runner, in the order of the chain, and
 * the first blocking cause.  One file per concern: doctor_iommu.c (command
 * line, IOMMU, confidential computing), doctor_gpus.c (each GPU's driver
 * and group), doctor_bars.c (BARs, Resizable BAR, BAR1 against VRAM),
 * doctor_paths.c (PCIe path, ACS), doctor_nvidia.c (the driver's
 * parameters), doctor_cuda.c (the CUDA driver really loaded),
 * doctor_p2pmap.c (the module, its links, its version, the saved links),
 * doctor_boot.c (DKMS, softdep, initramfs), doctor_kernels.c (the next
 * boot's kernel, every installed one), doctor_secureboot.c (Secure Boot,
 * DKMS's key), doctor_log.c (the kernel log),
 * doctor_env.c (the server's environment).
 */
#include <stdlib.h>

#include "container.h"
#include "doctor_int.h"

void doctor_run(const char *root, const struct doctor_env_source *env,
		const struct doctor_gpus *gpus, struct doctor_report *r)
{
	struct host *h = calloc(1, sizeof(*h));

	r->n = 0;
	r->nowners = 0;
	if (!h)
		return;
	h->root = root;
	h->want = gpus;
	h->r = r;
	in_container(root, h->container, sizeof(h->container));
	doctor_check_iommu(h);
	doctor_check_cc(h);
	doctor_find_gpus(h);
	doctor_find_vm_gpus(h);
	doctor_check_gpus(h);
	doctor_check_bars(h);
	doctor_check_paths(h);
	doctor_check_nvidia(h);
	doctor_check_cuda(h);
	doctor_check_p2pmap(h);
	doctor_check_version(h);
	doctor_check_proxmox(h);
	if (h->container[0]) {
		doctor_host_only(h);
	} else {
		doctor_check_dkms(h);
		doctor_check_kernels(h);
		doctor_check_secureboot(h);
		doctor_check_saved(h);
		doctor_check_softdep(h);
		doctor_check_initramfs(h);
	}
	doctor_check_log(h, env->dmesg);
	doctor_check_env(h, env);
	doctor_check_caches(h);
	if (h->container[0])
		doctor_check_container(h);
	free(h);
}

const char *doctor_level_name(enum doctor_level l)
{
	static const char * const names[] = {
		[DOCTOR_OK] = "ok", [DOCTOR_WARN] = "warn",
		[DOCTOR_FAIL] = "fail", [DOCTOR_SKIP] = "skip",
	};

	return names[l];
}

const struct doctor_check *doctor_first_blocking(const struct doctor_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->c[i].blocking)
			return &r->c[i];
	return NULL;
}
