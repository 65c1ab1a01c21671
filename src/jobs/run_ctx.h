/* run_ctx.h - what the three parts of `lab run` share: run.c plans and
 * schedules the tests, run_test.c runs one in its guest, run_watch.c reads
 * the guest's console and state around it. Not for other modules. */
#ifndef LAB_RUN_CTX_H
#define LAB_RUN_CTX_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <libvirt/libvirt.h>

#include "core/results.h"
#include "core/schedule.h"
#include "core/suite.h"
#include "core/verdict.h"

struct lab_run_opts;

#define RESTART_TIMEOUT_S 600
#define CONSOLE_SETTLE_US 1500000 /* serial -> virtlogd -> store -> local copy */
#define AGENT_SLACK_S 30          /* the runner's bound over the program's */
#define NFS_DIR "/mnt/lab-nfs"

struct guest {
	char *name;
	char *role;
	char *address; /* without the prefix length */
	char *console;    /* the local copy of its log, kept up to date */
	char *console_vol; /* its log: a volume of the store */
	char *kernel;
	int boots;
	bool lost;     /* did not come back after a restart */
};

/* One test instance (a test, or a test at one NFS version). */
struct spec {
	const struct lab_test *t;
	const char *vers;     /* NFS version or NULL */
	struct guest *server; /* the NFS server it uses (servers=), or NULL */
	const char *group;    /* LAB_INTEROP_GROUP, or NULL */
	struct guest *g;      /* NULL: no guest has a role it needs */
	char *name;           /* "t009-nfs-umount-race:v4.1" */
	long console_from;    /* console lines before its BEGIN marker: a
			       * report above is an earlier run's (same name,
			       * same boot: lab stress) */
	bool last_use;        /* nothing later in the plan uses its guest */
	bool spent;           /* it spent its guests' kernels (a consumed
			       * boot, a timeout): its parts' guests restart */
	struct lab_result *r; /* NULL until done, or dropped on Ctrl-C */
};

struct run_ctx {
	struct lab_run run;
	GPtrArray *guests;  /* struct guest * */
	GPtrArray *specs;   /* struct spec *, in plan order */
	uint64_t *uses;     /* per spec: bit per guest index */
	enum lab_sched_state *state;
	const char *nfs_server;
	const struct lab_run_opts *o;
	virConnectPtr conn;
	struct lab_inst *in;     /* the instance, attached to its host */
	GMutex lock;
	GCond changed;
	guint printed;      /* KTAP lines out so far, in plan order */
	guint bad;
};

struct job {
	struct run_ctx *c;
	struct spec *s;
};


/* A shell command in GUEST; *out its stdout. -1 when the agent did not
 * answer (the guest may be dead), else the command's exit status. */
int lab_run_gsh(struct run_ctx *c, const char *guest, const char *cmd,
		int timeout_s, unsigned flags, char **out);
/* The script a program of S runs in (PART: the role of a part, else
 * NULL), and whether PROGRAM is on GUEST's tests disk (NULL, or why not). */
char *lab_run_script(struct run_ctx *c, const struct spec *s,
		     const char *program, const char *part);
char *lab_run_program_there(struct run_ctx *c, const char *guest, const char *program);
/* A program's own last word, "# result: WORD: why", or NULL. */
char *lab_run_program_says(const char *out);

/* "lab: TEXT" in GUEST's kernel log (the BEGIN/END markers that pin a
 * console report to a test). */
void lab_run_kmsg_marker(struct run_ctx *c, const char *guest, const char *text);

/* run_parts.c: start S's parts on their guests (before its program), then
 * collect them; a part worse than *EXIT_CODE decides it and *SAID, and
 * every part's output is appended to *OUT. Last, the parts' guests'
 * console reports in the test's window join the test's (and the parts are
 * freed). */
GPtrArray *lab_parts_start(struct run_ctx *c, const struct spec *s);
void lab_parts_finish(struct run_ctx *c, const struct spec *s, GPtrArray *parts,
		      int *exit_code, char **out, char **said);
void lab_parts_classify(struct run_ctx *c, const struct spec *s, GPtrArray *parts,
			struct lab_result *r, struct lab_obs *o);
/* S spent its kernels: bring its parts' guests back (its own is the
 * caller's). */
void lab_parts_restart(struct run_ctx *c, const struct spec *s);

/* The first guest with the first of ROLES that one has, or NULL. */
struct guest *lab_run_guest_with_role(GPtrArray *guests, char **roles);
/* Run S in its guest and decide its verdict (bringing the guest back when
 * the test spent it). */
struct lab_result *lab_run_spec(struct run_ctx *c, struct spec *s);

/* run_watch.c */
/* Bring G's local console copy up to date with its volume. */
void lab_run_sync_console(struct run_ctx *c, const struct guest *g);
/* Lines in G's console so far (synced first). */
long lab_run_console_lines(struct run_ctx *c, const struct guest *g);
/* Where a dead boot's console is kept in the run. */
char *lab_run_console_name(struct run_ctx *c, struct guest *g);
/* The test's console reports after line FROM of CONSOLE, sorted: the fix's
 * own expected report, the seed's signature, the others; excerpts into its
 * directory. ON_GUEST names a part's guest (its excerpts are added to the
 * test guest's), NULL for the test's own. */
void lab_run_classify(struct run_ctx *c, const struct spec *s, struct lab_result *r,
		      const char *console, long from, const char *on_guest,
		      struct lab_obs *o);
/* After the program: is libvirtd there, the domain, its agent? */
void lab_run_observe(struct run_ctx *c, const struct spec *s, struct lab_obs *o);

/* While the program runs: has the kernel oopsed inside it? */
struct oops_watch {
	struct run_ctx *c;
	const struct spec *s;
	goffset seen;      /* console size at the last look */
	double oops_at;    /* when an oops of this test was first seen */
	bool panicked;     /* the kernel panicked: nothing will answer */
	double reset_polled; /* when run_reset.c last looked for a request */
};
/* A test's request to reset its NFS server, looked for at most once a
 * second (*POLLED: when last): done, and answered in its guest. */
void lab_run_reset_poll(struct run_ctx *c, const struct spec *s, double *polled);
/* lab_agent_exec_watch's stop: an oops pinned to the test, and a grace
 * for the program to finish, or a panic. */
bool lab_run_oopsed(void *arg);
/* A memory dump of S's guest as it is (dead or hung), or NULL. */
char *lab_run_dump(struct run_ctx *c, const struct spec *s);

#endif
