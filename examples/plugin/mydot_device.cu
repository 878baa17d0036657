/* mydot_device.cu — an example dotfuzz plugin in the device form: device
 * pointers in, the result written to device memory, all work enqueued on
 * dotfuzz's stream. Loaded with `dotfuzz --kernel-lib mydot_device.so`
 * (cuda backend), without editing dotfuzz. The ABI is
 * include/dotfuzz/plugin.h. Build (Makefile target `example-plugin-cuda`):
 *     nvcc -O3 -arch=sm_90 -Xcompiler -fPIC -shared -I include \
 *          -o mydot_device.so examples/plugin/mydot_device.cu
 *
 * One kernel, `mydot-dev`: a single block; thread t sums products t, t+B,
 * t+2B, ... in float, then a shared-memory binary tree (so B must be a power
 * of two) and thread 0 writes the result. The host model performs the same
 * operations in the same order, so dotfuzz checks the GPU result against it
 * bit for bit (the kernel is declared deterministic). __fmul_rn/__fadd_rn
 * keep nvcc from fusing the multiply and the add, whatever its flags.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "dotfuzz/plugin.h"

__global__ void mydot_dev_kernel(const float *a, const float *b, uint64_t n, float *result)
{
    extern __shared__ float part[];
    unsigned t = threadIdx.x, B = blockDim.x;
    float s = 0.0f;
    for (uint64_t i = t; i < n; i += B)
        s = __fadd_rn(s, __fmul_rn(a[i], b[i]));
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

static int mydot_dev(const void *d_a, const void *d_b, uint64_t n,
                     const dotfuzz_launch *launch, void *d_result, void *stream)
{
    unsigned B = launch->block;
    mydot_dev_kernel<<<1, B, B * sizeof(float), (cudaStream_t)stream>>>(
        (const float *)d_a, (const float *)d_b, n, (float *)d_result);
    return (int)cudaGetLastError();
}

/* The same operations on the CPU: per-thread sums, then the tree. */
static int mydot_dev_model(const void *va, const void *vb, uint64_t n,
                           const dotfuzz_launch *launch, void *result_out)
{
    const float *a = (const float *)va, *b = (const float *)vb;
    float part[1024];
    unsigned B = launch->block;
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

/* A thread's chain: its product and up to ceil(n/B) - 1 additions (plus
 * the first, from 0, which is exact), then log2(B) tree levels. */
static uint64_t mydot_dev_height(uint64_t n, const dotfuzz_launch *launch)
{
    uint64_t B = launch->block, levels = 0;
    while (((uint64_t)1 << levels) < B)
        levels++;
    return 1 + (n + B - 1) / B + levels;
}

static const dotfuzz_kernel kernels[] = {
    {"mydot-dev", "example plugin, device form: one block, strided sums, shared-memory tree",
     DOTFUZZ_F32, DOTFUZZ_F32, DOTFUZZ_DETERMINISTIC | DOTFUZZ_BLOCK_POW2,
     32, 1024, 256, 0, 1, 1u << 22, mydot_dev_height, 0, mydot_dev, mydot_dev_model, 0, 0, 0},
};

static const dotfuzz_plugin plugin = {
    DOTFUZZ_PLUGIN_HEADER, sizeof kernels / sizeof kernels[0], "mydot_device", kernels};

const dotfuzz_plugin *dotfuzz_plugin_entry(void) { return &plugin; }
