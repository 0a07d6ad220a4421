// SPDX-License-Identifier: GPL-2.0
/* dlopen("libnccl.so.2"): the entry points of nccl_lib.h. */
#define _GNU_SOURCE			/* dladdr() */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_lib.h"

/* dlopen()'s message when the file is not there, whatever the path. */
#define DL_NOT_FOUND	"cannot open shared object file"

enum nccl_load_status nccl_load(struct nccl_api *api, const char *path,
				char *err, size_t len)
{
	const char *e, *name = path ? path : NCCL_LIB;
	void *p;

	memset(api, 0, sizeof(*api));
	api->handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!api->handle) {
		e = dlerror();
		snprintf(err, len, "%s", e ? e : "cannot load");
		return e && !strstr(e, DL_NOT_FOUND) ? NCCL_LOAD_BROKEN :
						       NCCL_LOAD_NOT_FOUND;
	}
	/* dlsym() returns void *; POSIX guarantees it converts. */
#define NCCL_FN_LOOKUP(field, sym, ret, args)				\
	p = dlsym(api->handle, #sym);					\
	if (!p) {							\
		snprintf(err, len, "%s has no %s", name, #sym);		\
		nccl_unload(api);					\
		return NCCL_LOAD_NO_SYMBOL;				\
	}								\
	memcpy(&api->field, &p, sizeof(p));
	NCCL_SYMBOLS(NCCL_FN_LOOKUP)
#undef NCCL_FN_LOOKUP
	return NCCL_LOAD_OK;
}

void nccl_unload(struct nccl_api *api)
{
	if (api->handle)
		dlclose(api->handle);
	memset(api, 0, sizeof(*api));
}

void nccl_library_path(const struct nccl_api *api, char *buf, size_t len)
{
	char real[PATH_MAX];
	Dl_info info;
	void *p;

	memcpy(&p, &api->GetVersion, sizeof(p));
	if (!p || !dladdr(p, &info) || !info.dli_fname) {
		snprintf(buf, len, "%s", NCCL_LIB);
		return;
	}
	snprintf(buf, len, "%s",
		 realpath(info.dli_fname, real) ? real : info.dli_fname);
}
