/* console.c - see console.h.
 *
 * A report opens at a line matching one of the start patterns and goes on
 * while the lines look like part of it: everything up to its Call Trace,
 * the trace itself (indented frames), then only the trailer lines a report
 * ends with (registers, "---[ end trace", the panic). Only kernel-format
 * lines count, those with a "[ seconds.micros]" stamp: what userspace writes
 * to the console (systemd, lab-seed, the test scripts) has none, so its
 * "WARNING" never opens a report, and its lines never end one either. */
#include "core/console.h"

#include <string.h>

#define EXCERPT_MAX 60 /* lines; the cause and the trace come first */
#define GAP_S 5.0      /* a report prints at once; a pause means it ended */

/* How the end of a report is found. */
enum end_kind {
	END_TRACE, /* its Call Trace, then trailer lines only */
	END_DELIM, /* the closing "=====" line (KASAN, UBSAN) */
	END_LINE,  /* the start line is all of it */
};

enum mode {
	M_BODY,  /* before the Call Trace: take every line */
	M_TRACE, /* inside it: take indented frames */
	M_TAIL,  /* after it: take trailer lines only */
};

/* A WARNING's own line names the file, line and function it fired in. */
#define WARN_AT_RE "^WARNING: (?:CPU: \\d+ PID: \\d+ )?at \\S+:\\d+ ([\\w.]+)"

struct pattern {
	const char *type;
	const char *re;
	const char *title; /* \N are the regex's groups */
	bool in_func;      /* title gets " in FUNC" when FUNC is known */
	int func_group;    /* group naming the guilty function, 0 if none */
	enum end_kind end;
};

/* First match wins, so specific patterns precede general ones. */
static const struct pattern patterns[] = {
	{ "lockdep", "^WARNING: (possible circular locking dependency detected"
		"|inconsistent lock state|possible recursive locking detected"
		"|suspicious RCU usage|bad unlock balance detected"
		"|held lock freed|lock held when returning to user space"
		"|possible irq lock inversion dependency detected"
		"|[A-Z]+-safe -> [A-Z]+-unsafe lock order detected)",
	  "\\1", false, 0, END_TRACE },
	{ "warning", WARN_AT_RE, "WARNING", true, 1, END_TRACE },
	{ "warning", "^DEBUG_LOCKS_WARN_ON\\((.*)\\)\\s*$",
	  "DEBUG_LOCKS_WARN_ON(\\1)", true, 0, END_TRACE },
	{ "list-corruption", "^(list_add|list_del) (corruption|double add)",
	  "\\1 \\2", true, 0, END_TRACE },
	{ "kasan", "^BUG: KASAN: (\\S+(?: or \\S+)?) in ([\\w.]+)",
	  "KASAN: \\1", true, 2, END_DELIM },
	{ "ubsan", "^UBSAN: ([\\w-]+) in \\S+", "UBSAN: \\1", true, 0, END_DELIM },
	{ "soft-lockup", "^(?:NMI )?watchdog: BUG: soft lockup",
	  "BUG: soft lockup", true, 0, END_TRACE },
	{ "oops", "^BUG: kernel NULL pointer dereference",
	  "BUG: kernel NULL pointer dereference", true, 0, END_TRACE },
	{ "oops", "^BUG: unable to handle (page fault|kernel paging request"
		"|kernel NULL pointer dereference)",
	  "BUG: unable to handle \\1", true, 0, END_TRACE },
	{ "oops", "^general protection fault", "general protection fault", true,
	  0, END_TRACE },
	{ "oops", "^divide error: ", "divide error", true, 0, END_TRACE },
	{ "oops", "^(?:Internal error: )?Oops", "Oops", true, 0, END_TRACE },
	{ "bug", "^kernel BUG at ([^\\s!]+)", "kernel BUG at \\1", false, 0,
	  END_TRACE },
	{ "hung-task", "^INFO: task .+:\\d+ blocked for more than \\d+ seconds",
	  "INFO: task hung", true, 0, END_TRACE },
	{ "rcu-stall", "^(?:rcu: )?INFO: rcu_\\w+ (?:self-)?detected stall",
	  "INFO: rcu detected stall", true, 0, END_TRACE },
	{ "panic", "^Kernel panic - not syncing: ?(.*?)\\s*$",
	  "Kernel panic - not syncing: \\1", false, 0, END_TRACE },
	{ "busy-inodes", "^VFS: Busy inodes after unmount of (\\S+?)\\.?(?: |$)",
	  "VFS: Busy inodes after unmount of \\1", false, 0, END_LINE },
	{ "sysfs-duplicate", "^sysfs: cannot create duplicate filename '([^']*)'",
	  "sysfs: cannot create duplicate filename '\\1'", false, 0, END_TRACE },
	{ "assertion", "^Assertion failure in (\\w+)\\(\\) at ([^\\s:]+):(\\d+)",
	  "Assertion failure in \\1() at \\2:\\3", false, 1, END_TRACE },
	/* Any other "BUG: what": sleeping function called from invalid
	 * context, scheduling while atomic, bad page state, ... */
	{ "bug", "^BUG: ([^:]+?)(?: at \\S+:\\d+|:.*)?$", "BUG: \\1", true, 0,
	  END_TRACE },
};

#define N_PATTERNS G_N_ELEMENTS(patterns)

/* Frames that report a problem rather than cause it: the guilty function
 * is the first frame that is none of these (compiler suffixes stripped). */
static const char helper_re[] =
	"^(?:dump_stack(?:_lvl)?|show_stack|show_trace_log_lvl|show_regs"
	"|__warn|warn_slowpath_fmt|__warn_printk|report_bug|handle_bug"
	"|exc_invalid_op|asm_exc_invalid_op|do_error_trap|do_trap|die|die_addr"
	"|__die|__die_body|oops_end|exc_page_fault|asm_exc_page_fault"
	"|do_user_addr_fault|handle_page_fault|page_fault_oops"
	"|kernelmode_fixup_or_oops|no_context|_?_?bad_area_nosemaphore"
	"|spurious_kernel_fault|exc_general_protection"
	"|asm_exc_general_protection|exc_divide_error|asm_exc_divide_error"
	"|__list_add_valid(?:_or_report)?|__list_del_entry_valid(?:_or_report)?"
	"|__list_add|__list_del_entry|list_add(?:_tail)?|list_del(?:_init)?"
	"|list_move(?:_tail)?|printk|_printk|vprintk(?:_emit|_default)?"
	"|panic|check_panic_on_warn|lockdep_\\w+|__lock_acquire|lock_acquire"
	"|lock_release|lock_acquired|lock_contended|mark_lock|mark_usage"
	"|check_noncircular|check_prev_add|check_prevs_add|validate_chain"
	"|check_irq_usage|print_\\w+_bug|debug_lockdep_rcu_enabled"
	"|lock_is_held_type|__mutex_lock(?:_common)?"
	"|mutex_lock(?:_nested|_interruptible|_killable|_io_nested)?"
	"|_raw_(?:spin|read|write)_\\w+|do_raw_spin_lock"
	"|(?:native_)?queued_spin_lock_slowpath|(?:__)?down_(?:read|write)\\w*"
	"|rwsem_down_\\w+|__schedule|schedule|schedule_timeout"
	"|schedule_preempt_disabled|io_schedule(?:_timeout)?|context_switch"
	"|finish_task_switch|_?_?wait_for_common|wait_for_completion\\w*"
	"|bit_wait\\w*|__wait_on_bit\\w*|out_of_line_wait_on_bit\\w*"
	"|__might_(?:sleep|resched|fault)|_?_?kasan_\\w+|__asan_\\w+"
	"|print_report|print_address_description|__ubsan_handle_\\w+"
	"|ubsan_epilogue|sysfs_warn_dup|sysfs_create_dir_ns"
	"|sysfs_do_create_link_sd|sysfs_create_link|kobject_add_internal"
	"|kobject_add(?:_varg)?|kobject_init_and_add|device_add"
	"|device_create(?:_groups_vargs|_vargs)?|rcu_dump_cpu_stacks"
	"|print_cpu_stall|check_cpu_stall|rcu_pending|rcu_sched_clock_irq"
	"|update_process_times|tick_sched_handle|tick_sched_timer"
	"|__hrtimer_run_queues|hrtimer_interrupt|_?_?sysvec_apic_timer_interrupt"
	"|asm_sysvec_apic_timer_interrupt|nmi_cpu_backtrace"
	"|nmi_trigger_cpumask_backtrace|arch_trigger_cpumask_backtrace"
	"|watchdog_timer_fn)$";

/* Lines that may follow a Call Trace and still belong to the report. */
static const char tail_re[] =
	"^(?:\\s|$|Modules linked in:|CR2:|---\\[ end |RIP:|Code:|RSP:|RAX:"
	"|RDX:|RBP:|R\\d+:|FS:|CS:|DR\\d:|PKRU:|Kernel Offset:|Rebooting in"
	"|Showing all locks held|Showing busy workqueues|\\d+ locks? held by"
	"|no locks held by|=+\\s*$|Disabling lock debugging"
	"|NMI backtrace for cpu|Sending NMI from CPU|CPU: \\d+ PID:"
	"|Hardware name:|Call Trace:|Workqueue:|task:|Task dump for CPU|rcu: "
	"|INFO: lockdep is turned off|irq event stamp:|hardirqs last"
	"|softirqs last|Dumping ftrace|Shutting down cpus with NMI"
	"|note: \\S+\\[\\d+\\] exited with)";

/* One kernel-format line of the log. */
struct kline {
	const char *text; /* from the [ stamp ] on */
	const char *body; /* after it */
	double ts;
	long n;
};

/* The report being gathered. */
struct building {
	const struct pattern *pat;
	GPtrArray *text;  /* lines from the stamp on, for the excerpt */
	GPtrArray *body;  /* the same without stamps, for matching */
	char *title;      /* without " in FUNC" */
	char *hint;       /* function named by the start line */
	char *first_line;
	char *message;
	char *test;
	long line;
	enum mode mode;
	bool panic;
	bool crash;       /* it took in an oops, BUG or panic that followed it */
	double last_ts;
};

struct scanner {
	GRegex *start[N_PATTERNS];
	GRegex *stamp, *begin, *end, *banner, *preamble, *call_trace, *tail;
	GRegex *rip, *frame, *guess_frame, *warn_at, *helper;
	GPtrArray *reports;
	struct building *cur;
	char *test;     /* the test whose BEGIN is open */
	char *pre_text; /* a "cut here" or "=====" line heading the next report */
	int pre_msgs;   /* lines after a cut-here: a WARN()'s own message */
	char *pre_message; /* those lines, without their stamps */
	char *pre_body;
};

static GRegex *compile(const char *re)
{
	/* RAW: serial logs carry garbage bytes; we match ASCII only. */
	GRegex *r = g_regex_new(re, G_REGEX_RAW | G_REGEX_OPTIMIZE, 0, NULL);

	g_assert(r); /* the patterns are constants */
	return r;
}

static char *match_group(GRegex *re, const char *s, int group)
{
	GMatchInfo *mi = NULL;
	char *out = NULL;

	if (g_regex_match(re, s, 0, &mi))
		out = g_match_info_fetch(mi, group);
	g_match_info_free(mi);
	return out;
}

static bool matches(GRegex *re, const char *s)
{
	return g_regex_match(re, s, 0, NULL);
}

void lab_report_free(struct lab_report *r)
{
	if (!r)
		return;
	g_free(r->type);
	g_free(r->title);
	g_free(r->function);
	g_free(r->first_line);
	g_free(r->message);
	g_free(r->excerpt);
	g_free(r->test);
	g_free(r);
}

static void report_free_cb(gpointer p)
{
	lab_report_free(p);
}

static void scanner_init(struct scanner *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < N_PATTERNS; i++)
		s->start[i] = compile(patterns[i].re);
	/* Text before the stamp is a userspace line the kernel cut into. */
	s->stamp = compile("^.*?(\\[\\s*(\\d+\\.\\d+)\\](?:\\[\\s*[CT]\\d+\\])? ?(.*))$");
	s->begin = compile("^lab: BEGIN (\\S+)\\s*$");
	s->end = compile("^lab: END \\S+");
	s->banner = compile("^Linux version \\d");
	s->preamble = compile("^(?:-+\\[ cut here \\]-+|=+)\\s*$");
	s->call_trace = compile("^Call [Tt]race:");
	s->tail = compile(tail_re);
	s->rip = compile("^RIP: [0-9a-f]{4}:([\\w.]+)\\+0x");
	s->frame = compile("^\\s+([\\w.]+)\\+0x[0-9a-f]+/0x[0-9a-f]+");
	/* "? name+0x": unreliable frames, all a kernel without frame pointers
	 * or ORC prints; the last resort for a guilty function */
	s->guess_frame = compile("^\\s+\\? ([\\w.]+)\\+0x[0-9a-f]+/0x[0-9a-f]+");
	s->warn_at = compile(WARN_AT_RE);
	s->helper = compile(helper_re);
	s->reports = g_ptr_array_new_with_free_func(report_free_cb);
}

static void scanner_clear(struct scanner *s)
{
	size_t i;

	for (i = 0; i < N_PATTERNS; i++)
		g_regex_unref(s->start[i]);
	g_regex_unref(s->stamp);
	g_regex_unref(s->begin);
	g_regex_unref(s->end);
	g_regex_unref(s->banner);
	g_regex_unref(s->preamble);
	g_regex_unref(s->call_trace);
	g_regex_unref(s->tail);
	g_regex_unref(s->rip);
	g_regex_unref(s->frame);
	g_regex_unref(s->guess_frame);
	g_regex_unref(s->warn_at);
	g_regex_unref(s->helper);
	g_free(s->test);
	g_free(s->pre_text);
	g_free(s->pre_body);
	g_free(s->pre_message);
}

static void clear_preamble(struct scanner *s)
{
	g_clear_pointer(&s->pre_text, g_free);
	g_clear_pointer(&s->pre_body, g_free);
	g_clear_pointer(&s->pre_message, g_free);
	s->pre_msgs = 0;
}

/* WARN(cond, fmt) prints its message between the cut-here line and the
 * "WARNING:" line; keep it (two lines at most) with the coming report. */
static bool warn_message(struct scanner *s, const struct kline *k)
{
	char *t;

	if (!s->pre_text || s->cur || s->pre_msgs >= 2 || s->pre_body[0] != '-')
		return false;
	t = g_strconcat(s->pre_text, "\n", k->text, NULL);
	g_free(s->pre_text);
	s->pre_text = t;
	t = s->pre_message ? g_strconcat(s->pre_message, "\n", k->body, NULL)
			   : g_strdup(k->body);
	g_free(s->pre_message);
	s->pre_message = t;
	s->pre_msgs++;
	return true;
}

/* "foo.isra.0" -> "foo" if foo is not a helper, else NULL. */
static char *guilty_name(struct scanner *s, const char *name)
{
	char *f = g_strndup(name, strcspn(name, "."));

	if (*f && !matches(s->helper, f))
		return f;
	g_free(f);
	return NULL;
}

/* The first guilty function in group 1 of re over the report's lines;
 * after_trace: only in lines after the first Call Trace header. */
static char *function_from(struct scanner *s, struct building *b, GRegex *re,
			   bool after_trace)
{
	bool in_trace = !after_trace;
	char *f = NULL;
	guint i;

	for (i = 0; i < b->body->len && !f; i++) {
		const char *line = b->body->pdata[i];
		char *name;

		if (!in_trace) {
			in_trace = matches(s->call_trace, line);
			continue;
		}
		name = match_group(re, line, 1);
		if (name)
			f = guilty_name(s, name);
		g_free(name);
	}
	return f;
}

/* What the start line names, then the WARNING's site, then RIP, then the
 * Call Trace: the first of them that is not a reporting helper. */
/* What the console carried may hold ESC or BEL: a title reaches terminals
 * and file names, so every control character becomes '?'. In place. */
static char *printable(char *s)
{
	for (char *p = s; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return s;
}

static char *guilty_function(struct scanner *s, struct building *b)
{
	char *f = b->hint ? guilty_name(s, b->hint) : NULL;

	if (!f)
		f = function_from(s, b, s->warn_at, false);
	if (!f)
		f = function_from(s, b, s->rip, false);
	if (!f)
		f = function_from(s, b, s->frame, true);
	if (!f)
		f = function_from(s, b, s->guess_frame, true);
	return f;
}

static char *excerpt(GPtrArray *lines)
{
	GString *out = g_string_new(NULL);
	guint i;

	for (i = 0; i < lines->len && i < EXCERPT_MAX; i++)
		g_string_append_printf(out, "%s\n", (char *)lines->pdata[i]);
	if (lines->len > EXCERPT_MAX)
		g_string_append_printf(out, "... %u more lines\n",
				       lines->len - EXCERPT_MAX);
	return g_string_free(out, FALSE);
}

static void building_free(struct building *b)
{
	g_ptr_array_unref(b->text);
	g_ptr_array_unref(b->body);
	g_free(b->title);
	g_free(b->hint);
	g_free(b->first_line);
	g_free(b->message);
	g_free(b->test);
	g_free(b);
}

/* Turn the report being gathered into a struct lab_report. */
static void finish(struct scanner *s)
{
	struct building *b = s->cur;
	struct lab_report *r;

	if (!b)
		return;
	/* Blank lines after the report are the gap before the next message. */
	while (b->body->len > 1 && !*(char *)b->body->pdata[b->body->len - 1]) {
		g_ptr_array_set_size(b->body, b->body->len - 1);
		g_ptr_array_set_size(b->text, b->text->len - 1);
	}
	r = g_new0(struct lab_report, 1);
	r->type = g_strdup(b->pat->type);
	r->function = printable(guilty_function(s, b));
	if (b->pat->in_func && r->function)
		r->title = g_strdup_printf("%s in %s", b->title, r->function);
	else
		r->title = g_strdup(b->title);
	printable(r->title);
	r->first_line = printable(g_steal_pointer(&b->first_line));
	r->message = g_steal_pointer(&b->message);
	r->test = g_steal_pointer(&b->test);
	r->excerpt = excerpt(b->text);
	r->line = b->line;
	r->panic = b->panic;
	r->absorbed_crash = b->crash;
	g_ptr_array_add(s->reports, r);
	building_free(b);
	s->cur = NULL;
}

static void append(struct building *b, const struct kline *k)
{
	g_ptr_array_add(b->text, g_strdup(k->text));
	g_ptr_array_add(b->body, g_strdup(k->body));
	b->last_ts = k->ts;
}

static struct building *start(struct scanner *s, const struct pattern *p,
			      GMatchInfo *mi, const struct kline *k)
{
	struct building *b = g_new0(struct building, 1);

	b->pat = p;
	b->text = g_ptr_array_new_with_free_func(g_free);
	b->body = g_ptr_array_new_with_free_func(g_free);
	if (s->pre_text) {
		g_ptr_array_add(b->text, g_steal_pointer(&s->pre_text));
		g_ptr_array_add(b->body, g_steal_pointer(&s->pre_body));
		b->message = g_steal_pointer(&s->pre_message);
	}
	append(b, k);
	b->title = g_match_info_expand_references(mi, p->title, NULL);
	if (p->func_group)
		b->hint = g_match_info_fetch(mi, p->func_group);
	b->first_line = g_strchomp(g_strdup(k->body));
	b->test = g_strdup(s->test);
	b->line = k->n;
	b->mode = p->end == END_LINE ? M_TAIL : M_BODY;
	b->panic = !strcmp(p->type, "panic");
	return b;
}

static bool type_in(const char *type, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(type, *set))
			return true;
	return false;
}

/* Does the open report swallow a new start line? A panic belongs to what
 * caused it; so does the BUG()/WARN() that a list corruption, an assertion
 * or an oops header goes on to print before its Call Trace. */
static bool absorbs(const struct building *b, const struct pattern *p)
{
	static const char *const causes[] = { "list-corruption", "assertion",
					      "oops", "warning", NULL };
	static const char *const crashes[] = { "oops", "bug", "warning", NULL };

	if (!strcmp(p->type, "panic"))
		return true;
	return b->mode == M_BODY && type_in(b->pat->type, causes) &&
	       type_in(p->type, crashes);
}

static bool try_start(struct scanner *s, const struct kline *k)
{
	GMatchInfo *mi = NULL;
	size_t i;

	for (i = 0; i < N_PATTERNS; i++) {
		if (g_regex_match(s->start[i], k->body, 0, &mi))
			break;
		g_clear_pointer(&mi, g_match_info_free);
	}
	if (i == N_PATTERNS)
		return false;
	if (s->cur && absorbs(s->cur, &patterns[i])) {
		append(s->cur, k);
		s->cur->panic |= !strcmp(patterns[i].type, "panic");
		s->cur->crash |= strcmp(patterns[i].type, "warning") != 0;
	} else {
		finish(s);
		s->cur = start(s, &patterns[i], mi, k);
	}
	g_match_info_free(mi);
	clear_preamble(s);
	return true;
}

/* BEGIN/END markers and a reboot's banner end any report and set the test
 * later reports are pinned to. */
static bool marker(struct scanner *s, const char *body)
{
	char *name = match_group(s->begin, body, 1);

	if (!name && !matches(s->end, body) && !matches(s->banner, body))
		return false;
	finish(s);
	clear_preamble(s);
	g_free(s->test);
	s->test = name;
	return true;
}

/* "------------[ cut here ]------------" and "=====" head the next report;
 * in a finished trace, a cut-here means that next report is starting. */
static void preamble(struct scanner *s, const struct kline *k)
{
	struct building *b = s->cur;
	bool cut = k->body[0] == '-';

	clear_preamble(s);
	s->pre_text = g_strdup(k->text);
	s->pre_body = g_strdup(k->body);
	if (!b)
		return;
	if (b->mode == M_TRACE)
		b->mode = M_TAIL;
	if (b->mode == M_TAIL && cut) {
		finish(s);
		return;
	}
	append(b, k);
	if (b->pat->end == END_DELIM && !cut)
		b->mode = M_TAIL;
}

static bool indented(const char *body)
{
	return !*body || *body == ' ' || *body == '\t';
}

static void continue_report(struct scanner *s, const struct kline *k)
{
	struct building *b = s->cur;

	if (b->mode == M_BODY) {
		append(b, k);
		if (b->pat->end == END_TRACE && matches(s->call_trace, k->body))
			b->mode = M_TRACE;
		return;
	}
	if (b->mode == M_TRACE && indented(k->body)) {
		append(b, k);
		return;
	}
	b->mode = M_TAIL;
	if (!matches(s->tail, k->body)) {
		finish(s);
		return;
	}
	append(b, k);
	if (matches(s->call_trace, k->body))
		b->mode = M_TRACE;
}

static void kernel_line(struct scanner *s, const struct kline *k)
{
	if (s->cur && k->ts - s->cur->last_ts > GAP_S)
		finish(s);
	if (marker(s, k->body) || try_start(s, k))
		return;
	if (matches(s->preamble, k->body)) {
		preamble(s, k);
		return;
	}
	if (warn_message(s, k))
		return;
	clear_preamble(s);
	if (s->cur)
		continue_report(s, k);
}

static void scan_line(struct scanner *s, const char *line, long n)
{
	GMatchInfo *mi = NULL;

	if (g_regex_match(s->stamp, line, 0, &mi)) {
		char *text = g_match_info_fetch(mi, 1);
		char *ts = g_match_info_fetch(mi, 2);
		char *body = g_match_info_fetch(mi, 3);
		struct kline k = { text, body, g_ascii_strtod(ts, NULL), n };

		kernel_line(s, &k);
		g_free(text);
		g_free(ts);
		g_free(body);
	}
	g_match_info_free(mi);
}

GPtrArray *lab_console_scan(const char *text)
{
	struct scanner s;
	const char *p = text ? text : "";
	GPtrArray *out;
	long n = 0;

	scanner_init(&s);
	while (*p) {
		size_t len = strcspn(p, "\n");
		/* \r\n consoles: the \r is not part of the line. */
		size_t keep = len && p[len - 1] == '\r' ? len - 1 : len;
		char *line = g_strndup(p, keep);

		scan_line(&s, line, ++n);
		g_free(line);
		p += len + (p[len] == '\n');
	}
	finish(&s);
	out = g_steal_pointer(&s.reports);
	scanner_clear(&s);
	return out;
}

GPtrArray *lab_console_scan_file(const char *path, GError **err)
{
	GPtrArray *out;
	char *data;
	gsize len, i;

	if (!g_file_get_contents(path, &data, &len, err))
		return NULL;
	/* A guest reset leaves NUL bytes on the serial line; don't stop there. */
	for (i = 0; i < len; i++)
		if (!data[i])
			data[i] = ' ';
	out = lab_console_scan(data);
	g_free(data);
	return out;
}

GPtrArray *lab_console_reports_after(GPtrArray *all, const char *test, long after)
{
	GPtrArray *out = g_ptr_array_new();
	guint i;

	for (i = 0; all && i < all->len; i++) {
		struct lab_report *r = all->pdata[i];

		if (!g_strcmp0(r->test, test) && r->line > after)
			g_ptr_array_add(out, r);
	}
	return out;
}

GPtrArray *lab_console_reports_for(GPtrArray *all, const char *test)
{
	return lab_console_reports_after(all, test, 0);
}

bool lab_console_has_panic(GPtrArray *reports)
{
	guint i;

	for (i = 0; reports && i < reports->len; i++)
		if (((struct lab_report *)reports->pdata[i])->panic)
			return true;
	return false;
}

char *lab_console_tail(const char *text, int lines)
{
	const char *end, *p;
	char *out, *w, *r;

	if (!text || lines <= 0)
		return g_strdup("");
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	for (p = end; p > text; p--)
		if (p[-1] == '\n' && --lines == 0)
			break;
	out = g_strndup(p, end - p);
	for (w = r = out; *r; r++)
		if (*r != '\r')
			*w++ = *r;
	*w = '\0';
	return out;
}
