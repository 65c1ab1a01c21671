# lab - kernel regression lab. `make deps` installs everything (Debian 12),
# `make` builds the CLI, `make check` runs every test.
CC      ?= gcc
PKGS    := libvirt libvirt-qemu glib-2.0 json-c
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Isrc $(shell pkg-config --cflags $(PKGS))
LDLIBS  += $(shell pkg-config --libs $(PKGS)) -lm
# a crash's backtrace names lab's functions (util.c: on_crash)
LDFLAGS += -rdynamic

# One job per file: every src/LAYER/*.c is part of lab (HACKING.md: the
# layers, lowest first), every tests/unit/test_*.c is a cmocka unit test.
SRCS    := $(sort $(wildcard src/*/*.c))
HDRS    := $(wildcard src/*/*.h)
OBJS    := $(SRCS:.c=.o)
UNIT    := $(patsubst %.c,%,$(sort $(wildcard tests/unit/test_*.c)))

.PHONY: all deps check unit integration cppcheck clean review fuzz fuzz-build valgrind

all: lab

lab: lab.o $(OBJS)
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

%.o: %.c $(HDRS)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) -c -o $@ $<

deps:
	bash scripts/deps.sh

# Unit tests link lab.c without main() so the CLI table is testable.
tests/unit/lab_nomain.o: lab.c $(HDRS)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) -DLAB_NO_MAIN -c -o $@ $<

tests/unit/%: tests/unit/%.c tests/unit/lab_nomain.o $(OBJS)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

unit: $(UNIT)
	@bash tests/run-unit.sh $(UNIT)

# Fuzzers: clang's libFuzzer with ASan and UBSan over the lab's own sources
# (built apart in fuzz/obj). `make fuzz` runs each for FUZZ_SECONDS seeded
# from tests/corpus; findings go to FUZZ_DIR, outside the repository.
# `make fuzz-topology` (console, results) runs one.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     ?= /tmp/lab-fuzz
FUZZ_CFLAGS  := -g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-Isrc -DLAB_FUZZ_SRC='"$(CURDIR)"' $(shell pkg-config --cflags $(PKGS))
FUZZERS      := $(patsubst fuzz/fuzz_%.c,%,$(sort $(wildcard fuzz/fuzz_*.c)))
FUZZ_OBJS    := $(SRCS:src/%.c=fuzz/obj/%.o)

fuzz/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

fuzz/bin/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h $(FUZZ_OBJS)
	@mkdir -p fuzz/bin
	@echo "  LD      $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) $(LDLIBS)

# kept between builds: make would delete them as intermediates
.SECONDARY: $(FUZZ_OBJS)

fuzz-build: $(FUZZERS:%=fuzz/bin/fuzz_%)

fuzz: fuzz-build
	@rc=0; for f in $(FUZZERS); do \
		FUZZ_DIR=$(FUZZ_DIR) bash fuzz/run.sh $$f $(FUZZ_SECONDS) || rc=1; \
	done; exit $$rc

fuzz-%: fuzz/bin/fuzz_%
	@FUZZ_DIR=$(FUZZ_DIR) bash fuzz/run.sh $* $(FUZZ_SECONDS)

# variableScope is off: kernel style declares locals at the top of a block.
cppcheck:
	cppcheck --quiet --error-exitcode=1 \
		--enable=warning,style,performance,portability \
		--suppress=variableScope --std=c11 --inline-suppr '-DG_GNUC_PRINTF(a,b)=' \
		-I src lab.c src/*/*.c fuzz/*.c

# lab's file-reading commands under valgrind's memcheck (tests/valgrind.sh).
valgrind: lab
	@bash tests/valgrind.sh

# Everything: unit tests, static checks, then the integration tests that
# build kernels and boot real guests. `.ci/run` calls exactly this.
check: lab $(UNIT)
	bash tests/check.sh

# The main job (README's first command).
review: lab
	bash scripts/review.sh

clean:
	rm -f lab lab.o $(OBJS) $(UNIT) tests/unit/*.o
	rm -rf fuzz/obj fuzz/bin
