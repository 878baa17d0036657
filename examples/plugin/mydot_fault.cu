/* mydot_fault.cu — a device-form plugin with the faults dotfuzz must
 * survive, to try its supervisor on your own machine: every command that
 * runs it saves the faulting case as a `bug` (rule crash, or exec for a lost
 * CUDA context) and goes on. Build (Makefile target `example-plugin-cuda`):
 *     nvcc -O3 -arch=sm_90 -Xcompiler -fPIC -shared -I include \
 *          -o mydot_fault.so examples/plugin/mydot_fault.cu
 *
 * Two kernels, mydot-dev's single-block sum otherwise (and its host model):
 *   mydot-fault-read   when n % 97 == 50, thread 0 reads 2^40 elements past
 *                      a[]: an illegal address on the GPU, which loses the
 *                      CUDA context of the process that ran it
 *   mydot-fault-host   when n % 97 == 50, the routine segfaults on the host
 *                      before it launches anything
 */
#include <cuda_runtime.h>
#include <signal.h>
#include <stdint.h>

#include "dotfuzz/plugin.h"

#define FAULTS(n) ((n) % 97 == 50)

__global__ void fault_kernel(const float *a, const float *b, uint64_t n, int wild, float *result)
{
    extern __shared__ float part[];
    unsigned t = threadIdx.x, B = blockDim.x;
    float s = 0.0f;
    for (uint64_t i = t; i < n; i += B)
        s = __fadd_rn(s, __fmul_rn(a[i], b[i]));
    if (wild && t == 0)
        s = __fadd_rn(s, a[(uint64_t)1 << 40]);
    part[t] = s;
    __syncthreads();
    for (unsigned half = B / 2; half > 0; half /= 2) {
        if (t < half)
            part[t] = __fadd_rn(part[t], part[t + half]);
        __syncthreads();
    }
    if (t == 0)
        *result = part[0];
}

static int launch(const void *d_a, const void *d_b, uint64_t n, const dotfuzz_launch *l,
                  void *d_result, void *stream, int wild)
{
    unsigned B = l->block;
    fault_kernel<<<1, B, B * sizeof(float), (cudaStream_t)stream>>>(
        (const float *)d_a, (const float *)d_b, n, wild, (float *)d_result);
    return (int)cudaGetLastError();
}

static int fault_read(const void *d_a, const void *d_b, uint64_t n, const dotfuzz_launch *l,
                      void *d_result, void *stream)
{
    return launch(d_a, d_b, n, l, d_result, stream, FAULTS(n));
}

static int fault_host(const void *d_a, const void *d_b, uint64_t n, const dotfuzz_launch *l,
                      void *d_result, void *stream)
{
    if (FAULTS(n))
        raise(SIGSEGV);
    return launch(d_a, d_b, n, l, d_result, stream, 0);
}

/* mydot-dev's model: per-thread sums, then the tree (no fault). */
static int model(const void *va, const void *vb, uint64_t n, const dotfuzz_launch *l,
                 void *result_out)
{
    const float *a = (const float *)va, *b = (const float *)vb;
    float part[1024];
    unsigned B = l->block;
    for (unsigned t = 0; t < B; t++) {
        float s = 0.0f;
        for (uint64_t i = t; i < n; i += B)
            s = s + a[i] * b[i];
        part[t] = s;
    }
    for (unsigned half = B / 2; half > 0; half /= 2)
        for (unsigned t = 0; t < half; t++)
            part[t] = part[t] + part[t + half];
    *(float *)result_out = part[0];
    return 0;
}

static uint64_t height(uint64_t n, const dotfuzz_launch *l)
{
    uint64_t B = l->block, levels = 0;
    while (((uint64_t)1 << levels) < B)
        levels++;
    return 1 + (n + B - 1) / B + levels;
}

static const dotfuzz_kernel kernels[] = {
    {"mydot-fault-read", "faulting example: an illegal address on the GPU when n % 97 == 50",
     DOTFUZZ_F32, DOTFUZZ_F32, DOTFUZZ_DETERMINISTIC | DOTFUZZ_BLOCK_POW2, 32, 1024, 256, 0, 1,
     0, height, 0, fault_read, model, 0, 0, 0},
    {"mydot-fault-host", "faulting example: a host segfault before the launch when n % 97 == 50",
     DOTFUZZ_F32, DOTFUZZ_F32, DOTFUZZ_DETERMINISTIC | DOTFUZZ_BLOCK_POW2, 32, 1024, 256, 0, 1,
     0, height, 0, fault_host, model, 0, 0, 0},
};

static const dotfuzz_plugin plugin = {DOTFUZZ_PLUGIN_HEADER, 2, "mydot-fault", kernels};

const dotfuzz_plugin *dotfuzz_plugin_entry(void) { return &plugin; }
