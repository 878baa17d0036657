/* fp8_models.h — the two declarations an E4M3 -> f32 tensor-core dot on
 * Hopper is judged by (reference/fused_dot.h's df_fused_model):
 *   df_wgmma_e4m3_chain  what wgmma does, as MMA-Sim publishes it: 32
 *                        products a step, 13 fraction bits kept below the
 *                        largest term, the result an f32 with 13 fraction
 *                        bits (e8m13), toward zero;
 *   df_tc_e4m3_fp32      the fp32 tensor-core accumulation a kernel may
 *                        claim instead: the same steps keeping 25 bits, an
 *                        f32 result toward zero (fp16/bf16's on Hopper).
 * The fp8 kernels that run wgmma (kernels/wgmma_dot.cu, kernels/
 * cublaslt_fp8.cu) declare the first when they say what they do and the
 * second as the mutant that promises more than it keeps.
 */
#ifndef DOTFUZZ_FP8_MODELS_H
#define DOTFUZZ_FP8_MODELS_H

#include "kernels/kernel.h"
#include "reference/fused_dot.h"

static const df_fused_model df_wgmma_e4m3_chain = {32, 13, 13, -126, 127, DF_ROUND_ZERO, -6};
static const df_fused_model df_tc_e4m3_fp32 = {32, 25, 23, -126, 127, DF_ROUND_ZERO, -6};

/* Their tree height: the steps of 32 on one chain over K (informational:
 * the fused bound judges). */
static inline uint64_t df_fp8_chain_height(uint64_t n, const df_launch *l)
{
    (void)l;
    return n > 32 ? (n + 31) / 32 : 1;
}

#endif
