// SPDX-License-Identifier: GPL-2.0
/* dlopen("libcuda.so.1"): the driver API entry points of cuda.h. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cuda.h"

int cuda_load(struct cuda_api *api, char *err, size_t len)
{
	const char *e;
	void *p;

	memset(api, 0, sizeof(*api));
	api->handle = dlopen(CUDA_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!api->handle) {
		e = dlerror();
		snprintf(err, len, "%s", e ? e : CUDA_LIB ": cannot load");
		return -1;
	}

	/* dlsym() returns void *; POSIX guarantees it converts. */
#define CUDA_FN_LOOKUP(field, sym, args)				\
	p = dlsym(api->handle, sym);					\
	if (!p) {							\
		snprintf(err, len, CUDA_LIB " has no %s", sym);		\
		cuda_unload(api);					\
		return -2;						\
	}								\
	memcpy(&api->field, &p, sizeof(p));
	CUDA_SYMBOLS(CUDA_FN_LOOKUP)
#undef CUDA_FN_LOOKUP
	return 0;
}

void cuda_unload(struct cuda_api *api)
{
	if (api->handle)
		dlclose(api->handle);
	memset(api, 0, sizeof(*api));
}

const char *cuda_strerror(const struct cuda_api *api, CUresult res)
{
	const char *s = NULL;

	if (api->GetErrorString && api->GetErrorString(res, &s) == CUDA_SUCCESS &&
	    s)
		return s;
	return "unknown error";
}
