# lab - kernel regression lab. `make deps` installs everything (Debian 12),
# `make` builds the CLI, `make check` runs every test.
CC      ?= gcc
PKGS    := libvirt libvirt-qemu glib-2.0 json-c
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $(shell pkg-config --cflags $(PKGS))
LDLIBS  += $(shell pkg-config --libs $(PKGS)) -lm

# One job per file: every src/*.c is part of lab, every tests/unit/test_*.c
# is a cmocka unit test.
SRCS    := $(sort $(wildcard src/*.c))
OBJS    := $(SRCS:.c=.o)
UNIT    := $(patsubst %.c,%,$(sort $(wildcard tests/unit/test_*.c)))

.PHONY: all deps check unit integration cppcheck clean review

all: lab

lab: lab.o $(OBJS)
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

%.o: %.c $(wildcard src/*.h)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) -c -o $@ $<

deps:
	bash scripts/deps.sh

# Unit tests link lab.c without main() so the CLI table is testable.
tests/unit/lab_nomain.o: lab.c $(wildcard src/*.h)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) -DLAB_NO_MAIN -c -o $@ $<

tests/unit/%: tests/unit/%.c tests/unit/lab_nomain.o $(OBJS)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

unit: $(UNIT)
	@bash tests/run-unit.sh $(UNIT)

# variableScope is off: kernel style declares locals at the top of a block.
cppcheck:
	cppcheck --quiet --error-exitcode=1 \
		--enable=warning,style,performance,portability \
		--suppress=variableScope --std=c11 --inline-suppr -I src lab.c src/*.c

# Everything: unit tests, static checks, then the integration tests that
# build kernels and boot real guests. `.ci/run` calls exactly this.
check: lab $(UNIT)
	bash tests/check.sh

# The main job (README's first command).
review: lab
	bash scripts/review.sh

clean:
	rm -f lab lab.o $(OBJS) $(UNIT) tests/unit/*.o
