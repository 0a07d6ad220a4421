// SPDX-License-Identifier: GPL-2.0
/* dlopen("libcuda.so.1"): the driver API entry points of cuda.h. */
#define _GNU_SOURCE			/* dladdr() */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "cuda_errors.h"

/* dlopen()'s message when the file is not there, whatever the path. */
#define DL_NOT_FOUND	"cannot open shared object file"

static void *lookup(void *handle, const char *sym)
{
	return dlsym(handle, sym);
}

int cuda_load(struct cuda_api *api, const char *path, char *err, size_t len)
{
	const char *e;
	void *p;

	memset(api, 0, sizeof(*api));
	api->handle = dlopen(path ? path : CUDA_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!api->handle) {
		e = dlerror();
		snprintf(err, len, "%s", e ? e : CUDA_LIB ": cannot load");
		return e && !strstr(e, DL_NOT_FOUND) ? CUDA_LOAD_BROKEN :
						       CUDA_LOAD_NOT_FOUND;
	}

	/* dlsym() returns void *; POSIX guarantees it converts. */
#define CUDA_FN_LOOKUP(field, sym, args)				\
	p = lookup(api->handle, #sym);					\
	if (p)								\
		memcpy(&api->field, &p, sizeof(p));
	CUDA_SYMBOLS(CUDA_FN_LOOKUP)
#undef CUDA_FN_LOOKUP
#define CUDA_FN_FALLBACK(field, sym)					\
	if (!api->field && (p = lookup(api->handle, #sym)))		\
		memcpy(&api->field, &p, sizeof(p));
	CUDA_FALLBACKS(CUDA_FN_FALLBACK)
#undef CUDA_FN_FALLBACK
#define CUDA_FN_CHECK(field, sym, args)					\
	if (!api->field) {						\
		snprintf(err, len, "%s has no %s", path ? path : CUDA_LIB, \
			 #sym);						\
		cuda_unload(api);					\
		return CUDA_LOAD_NO_SYMBOL;				\
	}
	CUDA_SYMBOLS(CUDA_FN_CHECK)
#undef CUDA_FN_CHECK
	return CUDA_LOAD_OK;
}

void cuda_library_path(const struct cuda_api *api, char *buf, size_t len)
{
	char real[PATH_MAX];
	Dl_info info;
	void *p;

	memcpy(&p, &api->Init, sizeof(p));
	if (!p || !dladdr(p, &info) || !info.dli_fname) {
		snprintf(buf, len, "%s", CUDA_LIB);
		return;
	}
	snprintf(buf, len, "%s",
		 realpath(info.dli_fname, real) ? real : info.dli_fname);
}

void cuda_unload(struct cuda_api *api)
{
	if (api->handle)
		dlclose(api->handle);
	memset(api, 0, sizeof(*api));
}

void cuda_describe(const struct cuda_api *api, CUresult res, char *buf,
		   size_t len)
{
	const char *name = NULL, *text = NULL;

	if (api->GetErrorName && api->GetErrorName(res, &name))
		name = NULL;
	if (!name)	/* a stub, a driver that did not initialise */
		name = cuda_error_name(res);
	if (api->GetErrorString && api->GetErrorString(res, &text))
		text = NULL;
	snprintf(buf, len, "%s%s%d%s%s%s", name ? name : "",
		 name ? " (" : "CUDA error ", (int)res, name ? ")" : "",
		 text ? ": " : "", text ? text : "");
}

bool cuda_failed(const struct cuda_api *api, const struct cuda_first_error *fe,
		 const char *call, CUresult res)
{
	if (res == CUDA_SUCCESS_)
		return false;
	if (!fe->call[0]) {
		snprintf(fe->call, fe->call_len, "%s", call);
		*fe->code = res;
		cuda_describe(api, res, fe->text, fe->text_len);
	}
	return true;
}

bool cuda_child_load(struct cuda_api *api, const struct cuda_first_error *fe)
{
	if (!cuda_load(api, NULL, fe->text, fe->text_len))
		return true;
	snprintf(fe->call, fe->call_len, "dlopen");
	*fe->code = -1;
	return false;
}
