// SPDX-License-Identifier: GPL-2.0
/*
 * doctor: the CUDA driver this machine (or container) really loads, as
 * verify and the inference servers load it: libcuda.so.1 from the library
 * path, cuInit, the devices it sees.  The usual failures in a container
 * are NVIDIA's stub from the toolkit found first, a userspace driver that
 * is not the host's kernel module's version, and device nodes not passed
 * in; each is named with its fix (cuda_errors.h).  CUDA runs in a child
 * with a watchdog (isolate.h), never in doctor itself; another host's
 * files (--root) are never judged by this machine's libcuda.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_errors.h"
#include "doctor_int.h"
#include "isolate.h"
#include "verify.h"

#define CUDA_TIMEOUT_S	30

/* "0000:01:00.0, 0000:41:00.0" from the bus ids CUDA gave. */
static void busids(const struct verify_enum *e, char *buf, size_t len)
{
	char pci[P2PMAP_ADDR_LEN];
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < e->count && used < len; i++) {
		if (e->busid_res[i] != CUDA_SUCCESS_ ||
		    verify_norm_busid(e->busid[i], pci))
			snprintf(pci, sizeof(pci), "?");
		used += snprintf(buf + used, len - used, "%s%s",
				 i ? ", " : "", pci);
	}
}

/* libcuda.so.1 is not on the library path. */
static void no_library(struct host *h, const char *err)
{
	if (h->container[0])
		doctor_add(h, "cuda.driver", DOCTOR_WARN,
			   "pass the host's NVIDIA userspace driver into the container (the NVIDIA container toolkit, or the host's libcuda.so.VERSION bind-mounted) and run ldconfig there",
			   "no CUDA driver in this container (%s): nothing here can use the GPUs (verify, vLLM, SGLang)",
			   err);
	else
		doctor_add(h, "cuda.driver", DOCTOR_SKIP, NULL,
			   "no CUDA driver here (%s); where the CUDA userspace lives in a container, run doctor there",
			   err);
}

void doctor_check_cuda(struct host *h)
{
	char why[256], kernel[256], advice[768], ids[512];
	struct verify_enum *e;
	struct doctor_check *c;
	enum isolate_status st;

	if (h->root[0]) {
		doctor_add(h, "cuda.driver", DOCTOR_SKIP, NULL,
			   "the CUDA driver is not loaded for another host's files (--root)");
		return;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	st = isolate_run(verify_enum_child, NULL, e, sizeof(*e),
			 CUDA_TIMEOUT_S, why, sizeof(why));
	nvidia_kernel_version(kernel, sizeof(kernel));
	if (st != ISOLATE_OK) {
		c = doctor_add(h, "cuda.driver", DOCTOR_FAIL, NULL,
			       "loading the CUDA driver (" CUDA_LIB ", cuInit): %s",
			       why);
		doctor_blocking(c);
	} else if (e->load == CUDA_LOAD_NOT_FOUND) {
		no_library(h, e->err);
	} else if (e->load) {
		c = doctor_add(h, "cuda.driver", DOCTOR_FAIL,
			       "take the directory of that file off the library path (LD_LIBRARY_PATH, /etc/ld.so.conf.d), or reinstall the NVIDIA userspace driver of the kernel module's version",
			       "the CUDA driver cannot be used: %s", e->err);
		doctor_blocking(c);
	} else if (e->init != CUDA_SUCCESS_ || !e->count) {
		cuda_init_advice(e->init == CUDA_SUCCESS_ ? 100 : e->init,
				 e->lib, kernel, advice, sizeof(advice));
		c = doctor_add(h, "cuda.driver", DOCTOR_FAIL, NULL,
			       "cuInit: %s: %s", e->init == CUDA_SUCCESS_ ?
			       "no CUDA devices" : e->err, advice);
		doctor_blocking(c);
	} else {
		busids(e, ids, sizeof(ids));
		doctor_add(h, "cuda.driver", DOCTOR_OK, NULL,
			   "%s: %d CUDA device%s (%s)%s%s", e->lib, e->count,
			   e->count == 1 ? "" : "s", ids,
			   kernel[0] ? "; " : "", kernel);
	}
	free(e);
}
