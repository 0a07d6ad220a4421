// SPDX-License-Identifier: GPL-2.0
/*
 * The element arithmetic of NCCL's reductions (src/device/reduce_kernel.h
 * of NVIDIA/nccl v2.30.7-1), done by the host on the stand-in's device
 * memory: the types the stand-in has; ncclAvg is a sum divided by the
 * ranks at the end, as NCCL's postDiv.
 */
#include <stdint.h>
#include <string.h>

#include "nccl_stub.h"

int type_size(ncclDataType_t t)
{
	switch (t) {
	case ncclInt8: case ncclUint8: return 1;
	case ncclBfloat16: return 2;
	case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
	case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
	default: return 0;	/* half and fp8: the stand-in has none */
	}
}

static float bf16_get(uint16_t v)
{
	uint32_t u = (uint32_t)v << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint16_t bf16_put(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	u += 0x7fff + (u >> 16 & 1);	/* round to nearest even */
	return u >> 16;
}

#define APPLY(T, get, put) do {						\
	for (i = 0; i < count; i++) {					\
		T a, b;							\
		memcpy(&a, (char *)dst + i * sizeof(a), sizeof(a));	\
		memcpy(&b, (const char *)src + i * sizeof(b), sizeof(b)); \
		(void)0;						\
		get;							\
		switch (op) {						\
		case ncclProd: x = x * y; break;			\
		case ncclMax: x = x > y ? x : y; break;			\
		case ncclMin: x = x < y ? x : y; break;			\
		default: x = x + y; break;				\
		}							\
		put;							\
		memcpy((char *)dst + i * sizeof(a), &a, sizeof(a));	\
	}								\
} while (0)

#define PLAIN(T) do {							\
	T x, y;								\
	APPLY(T, (x = a, y = b), a = x);				\
} while (0)

void reduce(void *dst, const void *src, size_t count, ncclDataType_t t,
	    ncclRedOp_t op)
{
	size_t i;

	switch (t) {
	case ncclInt8: PLAIN(int8_t); break;
	case ncclUint8: PLAIN(uint8_t); break;
	case ncclInt32: PLAIN(int32_t); break;
	case ncclUint32: PLAIN(uint32_t); break;
	case ncclInt64: PLAIN(int64_t); break;
	case ncclUint64: PLAIN(uint64_t); break;
	case ncclFloat32: PLAIN(float); break;
	case ncclFloat64: PLAIN(double); break;
	case ncclBfloat16: {
		float x, y;

		APPLY(uint16_t, (x = bf16_get(a), y = bf16_get(b)),
		      a = bf16_put(x));
		break;
	}
	default:
		break;
	}
}

#define DIV(T) do {							\
	T v;								\
	for (i = 0; i < count; i++) {					\
		memcpy(&v, (char *)dst + i * sizeof(v), sizeof(v));	\
		v = (T)(v / n);						\
		memcpy((char *)dst + i * sizeof(v), &v, sizeof(v));	\
	}								\
} while (0)

void divide(void *dst, size_t count, ncclDataType_t t, int n)
{
	size_t i;

	switch (t) {
	case ncclInt8: DIV(int8_t); break;
	case ncclUint8: DIV(uint8_t); break;
	case ncclInt32: DIV(int32_t); break;
	case ncclUint32: DIV(uint32_t); break;
	case ncclInt64: DIV(int64_t); break;
	case ncclUint64: DIV(uint64_t); break;
	case ncclFloat32: DIV(float); break;
	case ncclFloat64: DIV(double); break;
	case ncclBfloat16: {
		uint16_t v;

		for (i = 0; i < count; i++) {
			memcpy(&v, (char *)dst + i * 2, 2);
			v = bf16_put(bf16_get(v) / n);
			memcpy((char *)dst + i * 2, &v, 2);
		}
		break;
	}
	default:
		break;
	}
}
