# dotfuzz — build with `make`, test with `make test`, list targets with `make help`.
#
# Host code is C11 (cc), kernels are CUDA C (nvcc). A kernel's .cu file is
# compiled twice: by cc as C (its host model and descriptor) and by nvcc (its
# GPU kernel and launcher, inside #ifdef __CUDACC__). Without nvcc the build
# is host-only and `--backend cuda` says so.

CC        ?= cc
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })
BUILD     ?= build

# GPU architectures: CUDA_ARCH="sm_80 sm_90" (or one, CUDA_ARCH=sm_90) gives
# each one's machine code plus PTX for the newest, which the driver compiles
# for a GPU newer than all of them. Default: the first GPU's compute
# capability when nvidia-smi sees one; otherwise the data-centre GPUs (A100
# sm_80, H100 sm_90, and B200 sm_100 when this nvcc knows it).
DETECTED_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d '. ')
ifeq ($(CUDA_ARCH),)
  ifneq ($(DETECTED_CC),)
    CUDA_ARCH := sm_$(DETECTED_CC)
  else
    NVCC_ARCHS := $(if $(NVCC),$(shell $(NVCC) --list-gpu-arch 2>/dev/null))
    CUDA_ARCH  := sm_80 sm_90 $(if $(filter compute_100,$(NVCC_ARCHS)),sm_100)
  endif
endif
# the newest by number (sm_100 after sm_90); an "a" suffix sorts with its number
ARCH_NEWEST := $(shell printf '%s\n' $(patsubst sm_%,%,$(CUDA_ARCH)) | sort -n | tail -n1)
GENCODE := $(foreach a,$(patsubst sm_%,%,$(CUDA_ARCH)),-gencode arch=compute_$(a),code=sm_$(a)) \
           -gencode arch=compute_$(ARCH_NEWEST),code=compute_$(ARCH_NEWEST)

# Warnings are errors (WERROR=1) in a git checkout, the tree of development
# and CI, and not (WERROR=0) in a release tree, which a newer compiler than
# ours may build with new warnings. WERROR=0 or WERROR=1 on the command line
# or in the environment overrides; scripts/test.sh and .ci/run set it to 1.
WERROR ?= $(if $(wildcard .git),1,0)
ifeq ($(WERROR),1)
  WARN       := -Wall -Wextra -Werror
  NVCC_WARN  := -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror
else
  WARN       := -Wall -Wextra
  NVCC_WARN  := -Xcompiler -Wall,-Wextra
endif
# -ffp-contract=off: host models must not fuse a*b+c where the kernel does not.
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 $(WARN) -ffp-contract=off -fno-strict-aliasing -D_GNU_SOURCE -I.
# --fmad=false: kernels use FMA only where they write fmaf()/fma(), so their
# host models can match them bit for bit.
NVCCFLAGS ?= -O3
NVCCFLAGS += -std=c++17 $(GENCODE) -I. --fmad=false $(NVCC_WARN) -DDOTFUZZ_CUDA
# -ldl: --kernel-lib plugins (fuzz/plugin.c)
LDLIBS   := -lz -lnettle -lm -lpthread -ldl
# STATIC_DEPS=1 links zlib and nettle statically, for a binary carried to a
# machine that may lack them (the GPU host of scripts/gpu-verify.sh).
ifeq ($(STATIC_DEPS),1)
  LDLIBS := -Wl,-Bstatic -lz -lnettle -Wl,-Bdynamic -lm -lpthread -ldl
endif

LIB_SRCS  := $(wildcard fuzz/*.c fuzz/gen/*.c fuzz/check/*.c fuzz/run/*.c fuzz/backend/*.c) \
             $(filter-out fuzz/cmd/main.c,$(wildcard fuzz/cmd/*.c)) $(wildcard reference/*.c) \
             $(wildcard kernels/*.c) $(wildcard kernels/mutants/*.c)
KERN_CU   := $(wildcard kernels/*.cu kernels/mutants/*.cu fuzz/backend/*.cu)
TEST_SRCS := $(wildcard tests/*.c)

HOST_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(KERN_CU:%.cu=$(BUILD)/%.model.o)
ifneq ($(NVCC),)
  CFLAGS    += -DDOTFUZZ_CUDA
  CUDA_OBJS := $(KERN_CU:%.cu=$(BUILD)/%.gpu.o)
  # the plugin loader's device form copies the result back itself (C API)
  $(BUILD)/fuzz/plugin.o: CFLAGS += -I$(CUDA_HOME)/include
  CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublas -lcublasLt -lcudart_static -ldl -lrt -lstdc++
endif

.PHONY: all test help clean install uninstall man check-cuda example-plugin example-plugin-cuda libfuzzer libfuzzer-cuda refs-cache host-mem judge-cost lowp-cost cpu-sample
all: dotfuzz

help:
	@echo "make            build ./dotfuzz (CUDA sources too when nvcc is found: $(if $(NVCC),$(NVCC),none))"
	@echo "make test       build and run the test suite (CPU only; prints 'N passed, N failed')"
	@echo "make clean      remove $(BUILD)/ and ./dotfuzz"
	@echo "make example-plugin  build $(BUILD)/examples/plugin/mydot.so and mydot_lowp.so (dotfuzz --kernel-lib)"
	@echo "make example-plugin-cuda  build $(BUILD)/examples/plugin/mydot_device.so, mydot_fault.so and mydot_batch.so (device forms; needs nvcc)"
	@echo "make libfuzzer  build $(BUILD)/libfuzzer/dotfuzz-fuzz and dotfuzz-fuzz-parser (clang, libFuzzer; host backend)"
	@echo "make libfuzzer-cuda  build $(BUILD)/libfuzzer/dotfuzz-fuzz-cuda (clang + nvcc; DOTFUZZ_BACKEND=cuda runs the GPU kernels)"
	@echo "make host-mem    build $(BUILD)/tools/host-mem (the host's memory under one long case's references and model, alone and on every thread)"
	@echo "make refs-cache  build $(BUILD)/tools/refs-cache (what the references' first read of a case's data costs, on N threads)"
	@echo "make judge-cost  build $(BUILD)/tools/judge-cost (a precision verdict's judgement with and without its text)"
	@echo "make lowp-cost   build $(BUILD)/tools/lowp-cost (a low-precision case's host models and references, one thread)"
	@echo "make cpu-sample  build $(BUILD)/tools/libcpusample.so (a CPU sampling profiler to preload where there is no perf)"
	@echo "make install    install bin/dotfuzz, include/dotfuzz/plugin.h, the pkg-config file"
	@echo "                dotfuzz-plugin.pc and the man page dotfuzz.1 under PREFIX (now: $(PREFIX))"
	@echo "make uninstall  remove what make install installed (same PREFIX and DESTDIR)"
	@echo "make man        build $(BUILD)/dotfuzz.1 from dotfuzz --help (help2man)"
	@echo "make help       this list"
	@echo "variables:"
	@echo "  CUDA_ARCH=\"sm_80 sm_90\"  GPU targets, one or a list: each one's machine code plus PTX"
	@echo "                for the newest; default the present GPU's, else sm_80 sm_90 and sm_100"
	@echo "                where nvcc knows it (now: $(GENCODE))"
	@echo "  WERROR=0|1    warnings as errors (now: $(WERROR); default 1 in a git checkout, else 0)"
	@echo "  PREFIX, DESTDIR, BINDIR, INCLUDEDIR, PKGCONFIGDIR, MANDIR  where make install puts files"
	@echo "  STATIC_DEPS=1 link zlib and nettle statically"
	@echo "  CC, NVCC, CUDA_HOME, BUILD"

# the commit the build comes from, for every JSON document and stats file
# (fuzz/json.c); DOTFUZZ_COMMIT=... names it where there is no git
DOTFUZZ_COMMIT ?= $(shell c=$$(git rev-parse --short=12 HEAD 2>/dev/null) && \
                    { git diff --quiet HEAD -- 2>/dev/null && echo $$c || echo $$c-dirty; } || \
                    echo unknown)
$(BUILD)/commit.h: FORCE
	@mkdir -p $(@D)
	@echo '#define DOTFUZZ_COMMIT "$(DOTFUZZ_COMMIT)"' > $@.new
	@cmp -s $@.new $@ && rm -f $@.new || mv -f $@.new $@
$(BUILD)/fuzz/json.o: $(BUILD)/commit.h
$(BUILD)/fuzz/json.o: CFLAGS += -I$(BUILD)

$(BUILD)/libdotfuzz.a: $(HOST_OBJS) $(CUDA_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

dotfuzz: $(BUILD)/fuzz/cmd/main.o $(BUILD)/libdotfuzz.a
	$(CC) $(CFLAGS) -o $@ $^ $(CUDA_LIBS) $(LDLIBS)

# make install: the binary, the plugin ABI's header, its pkg-config file and
# the man page under PREFIX; DESTDIR stages them elsewhere (a package's
# root) while every installed path still names PREFIX.
PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
INCLUDEDIR   ?= $(PREFIX)/include
# header only, no library: the architecture-independent pkg-config folder
PKGCONFIGDIR ?= $(PREFIX)/share/pkgconfig
MANDIR       ?= $(PREFIX)/share/man
HELP2MAN     ?= $(shell command -v help2man 2>/dev/null)

# dotfuzz.1 from `dotfuzz --help` and --version, every command's help, and
# dist/dotfuzz.h2m; dated by the last commit, so the same tree gives the
# same page. Written under a temporary name: two makes may race here.
man: $(BUILD)/dotfuzz.1
$(BUILD)/dotfuzz.1: dotfuzz dist/dotfuzz.h2m dist/man-commands.sh
	@test -n "$(HELP2MAN)" || { echo "make man: help2man not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
	@mkdir -p $(@D)
	t=$@.$$$$; dist/man-commands.sh ./dotfuzz > $$t.h2m && \
	SOURCE_DATE_EPOCH=$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || date +%s)} \
	$(HELP2MAN) --no-info --section=1 --name="differential fuzzer for GPU dot-product kernels" \
	  --include=$$t.h2m --include=dist/dotfuzz.h2m --output=$$t ./dotfuzz && \
	mv -f $$t $@; rc=$$?; rm -f $$t $$t.h2m; exit $$rc

install: dotfuzz $(if $(HELP2MAN),$(BUILD)/dotfuzz.1)
	install -D -m 755 dotfuzz $(DESTDIR)$(BINDIR)/dotfuzz
	install -D -m 644 include/dotfuzz/plugin.h $(DESTDIR)$(INCLUDEDIR)/dotfuzz/plugin.h
	t=$(BUILD)/dotfuzz-plugin.pc.$$$$; \
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
	    -e "s|@VERSION@|$$(./dotfuzz --version | sed -n '1s/^dotfuzz \([^ ]*\).*/\1/p')|" \
	    -e "s|@ABI_VERSION@|$$(sed -n 's/^#define DOTFUZZ_PLUGIN_ABI_VERSION \([0-9]*\).*/\1/p' include/dotfuzz/plugin.h)|" \
	    dist/dotfuzz-plugin.pc.in > $$t && \
	install -D -m 644 $$t $(DESTDIR)$(PKGCONFIGDIR)/dotfuzz-plugin.pc; rc=$$?; rm -f $$t; exit $$rc
ifneq ($(HELP2MAN),)
	install -D -m 644 $(BUILD)/dotfuzz.1 $(DESTDIR)$(MANDIR)/man1/dotfuzz.1
else
	@echo "make install: help2man not found, so no man page (scripts/install-deps.sh installs it)"
endif

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/dotfuzz $(DESTDIR)$(INCLUDEDIR)/dotfuzz/plugin.h \
	      $(DESTDIR)$(PKGCONFIGDIR)/dotfuzz-plugin.pc $(DESTDIR)$(MANDIR)/man1/dotfuzz.1
	[ ! -d $(DESTDIR)$(INCLUDEDIR)/dotfuzz ] || rmdir --ignore-fail-on-non-empty $(DESTDIR)$(INCLUDEDIR)/dotfuzz

# the references are the CPU's hot loop: -O3 vectorizes their classification
$(BUILD)/reference/%.o: CFLAGS += -O3
# and the scale check's pass over a sampled case (fuzz/check/metamorphic.c)
$(BUILD)/fuzz/check/metamorphic.o: CFLAGS += -O3

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# host half of a kernel file: the model and the descriptor, as C
$(BUILD)/%.model.o: %.cu
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -x c -c -o $@ $<

# wgmma is sm_90a's alone (not in sm_90's forward-compatible set): its
# file gets sm_90a machine code and PTX where sm_90 is asked for
$(BUILD)/kernels/wgmma_dot.gpu.o: GENCODE := $(subst code=sm_90,code=sm_90a,$(subst arch=compute_90,arch=compute_90a,$(subst code=compute_90,code=compute_90a,$(GENCODE))))

# GPU half of a kernel file
$(BUILD)/%.gpu.o: %.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c -o $@ $<

# what the references pay for the first read of a case's data (tools/refs_cache.c)
refs-cache: $(BUILD)/tools/refs-cache
$(BUILD)/tools/refs-cache: $(BUILD)/tools/refs_cache.o $(BUILD)/libdotfuzz.a
	$(CC) $(CFLAGS) -o $@ $^ $(CUDA_LIBS) $(LDLIBS)

# the host's floor at n = 2^26: its memory under the references and
# the model, one thread and every thread (tools/host_mem.c)
host-mem: $(BUILD)/tools/host-mem
$(BUILD)/tools/host-mem: $(BUILD)/tools/host_mem.o $(BUILD)/libdotfuzz.a
	$(CC) $(CFLAGS) -o $@ $^ $(CUDA_LIBS) $(LDLIBS)

# what the why text costs a precision judgement (tools/judge_cost.c)
judge-cost: $(BUILD)/tools/judge-cost
$(BUILD)/tools/judge-cost: $(BUILD)/tools/judge_cost.o $(BUILD)/libdotfuzz.a
	$(CC) $(CFLAGS) -o $@ $^ $(CUDA_LIBS) $(LDLIBS)

# a low-precision case's host models and references (tools/lowp_cost.c)
lowp-cost: $(BUILD)/tools/lowp-cost
$(BUILD)/tools/lowp-cost: $(BUILD)/tools/lowp_cost.o $(BUILD)/libdotfuzz.a
	$(CC) $(CFLAGS) -o $@ $^ $(CUDA_LIBS) $(LDLIBS)

# a CPU sampling profiler preloaded on the GPU host, which has no
# perf (tools/cpu_sample.c; scripts/cpu-profile.py reads its samples)
cpu-sample: $(BUILD)/tools/libcpusample.so
$(BUILD)/tools/libcpusample.so: tools/cpu_sample.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) -O2 -fPIC -shared -o $@ $<

$(BUILD)/tests/dotfuzz-tests: $(TEST_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/libdotfuzz.a
	$(CC) $(CFLAGS) -o $@ $^ -lcriterion -lmpfr -lgmp $(CUDA_LIBS) $(LDLIBS)

test: $(BUILD)/tests/dotfuzz-tests dotfuzz $(BUILD)/tools/libcpusample.so
	DF_BUILD=$(BUILD) DF_CPU_SAMPLE_LIB=$(BUILD)/tools/libcpusample.so $(BUILD)/tests/dotfuzz-tests --jobs 2

# the example plugin (examples/plugin/): a shared library that needs only
# include/dotfuzz/plugin.h, built as a user would build theirs
example-plugin: $(BUILD)/examples/plugin/mydot.so $(BUILD)/examples/plugin/mydot_lowp.so
$(BUILD)/examples/plugin/%.so: examples/plugin/%.c include/dotfuzz/plugin.h
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) -O2 -fPIC -shared -Iinclude -o $@ $< -lm

example-plugin-cuda: $(BUILD)/examples/plugin/mydot_device.so $(BUILD)/examples/plugin/mydot_fault.so \
                     $(BUILD)/examples/plugin/mydot_batch.so
$(BUILD)/examples/plugin/%.so: examples/plugin/%.cu include/dotfuzz/plugin.h
	@mkdir -p $(@D)
	$(NVCC) -O3 -std=c++17 $(GENCODE) $(NVCC_WARN) \
	  -Xcompiler -fPIC,-ffp-contract=off -shared -Iinclude -o $@ $<

# libFuzzer targets (libfuzzer/): clang only. The library is built again by
# clang into $(BUILD)/lf, host-only, with coverage instrumentation; the
# parser target adds ASan+UBSan over fuzz/corpus.c and links the rest from
# there. A flag inside CC: CFLAGS on a sub-make's command line would
# replace the project's flags.
LF_CC    := clang
LF_DIR   := $(BUILD)/libfuzzer
LF_LIB   := $(BUILD)/lf/libdotfuzz.a
LF_FLAGS := -O2 -g -std=c11 $(WARN) -ffp-contract=off -fno-strict-aliasing -D_GNU_SOURCE -I.
libfuzzer: $(LF_DIR)/dotfuzz-fuzz $(LF_DIR)/dotfuzz-fuzz-parser

$(LF_LIB): FORCE
	$(MAKE) BUILD=$(BUILD)/lf CC="$(LF_CC) -fsanitize=fuzzer-no-link" NVCC= $@

$(LF_DIR)/dotfuzz-fuzz: libfuzzer/target.c libfuzzer/mutator.c libfuzzer/lf_common.h $(LF_LIB)
	@mkdir -p $(@D)
	$(LF_CC) $(LF_FLAGS) -fsanitize=fuzzer -o $@ libfuzzer/target.c libfuzzer/mutator.c $(LF_LIB) $(LDLIBS)

$(LF_DIR)/dotfuzz-fuzz-parser: libfuzzer/parser.c fuzz/corpus.c fuzz/corpus.h $(LF_LIB)
	@mkdir -p $(@D)
	$(LF_CC) $(LF_FLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -o $@ libfuzzer/parser.c fuzz/corpus.c $(LF_LIB) $(LDLIBS)

# The same target with the GPU kernels (clang for host code, nvcc for the
# kernels); zlib and nettle static so the binary can be carried to a GPU
# host that has no clang.
LFC_LIB := $(BUILD)/lfc/libdotfuzz.a
libfuzzer-cuda: $(LF_DIR)/dotfuzz-fuzz-cuda

$(LFC_LIB): FORCE
	$(MAKE) BUILD=$(BUILD)/lfc CC="$(LF_CC) -fsanitize=fuzzer-no-link" $@

$(LF_DIR)/dotfuzz-fuzz-cuda: libfuzzer/target.c libfuzzer/mutator.c libfuzzer/lf_common.h $(LFC_LIB)
	@mkdir -p $(@D)
	$(LF_CC) $(LF_FLAGS) -DDOTFUZZ_CUDA -fsanitize=fuzzer -o $@ libfuzzer/target.c \
	  libfuzzer/mutator.c $(LFC_LIB) $(CUDA_LIBS) -Wl,-Bstatic -lz -lnettle -Wl,-Bdynamic -lm -lpthread -ldl

.PHONY: FORCE
FORCE:

clean:
	rm -rf $(BUILD) dotfuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
