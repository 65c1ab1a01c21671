/* agent.c - guest-ping and guest-exec over the qemu guest agent channel
 * (org.qemu.guest_agent.0). JSON is built and parsed with json-c. */
#include "virt/agent.h"
#include "util/util.h"

#include <json-c/json.h>
#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>
#include <string.h>
#include <unistd.h>

/* Send one command; returns the parsed "return" member or NULL. */
static json_object *agent_call(virDomainPtr dom, const char *cmd, int timeout_s,
			       bool quiet, json_object **whole)
{
	char *reply = virDomainQemuAgentCommand(dom, cmd, timeout_s, 0);
	json_object *root, *ret = NULL;

	*whole = NULL;
	if (!reply) {
		if (!quiet) {
			/* copy first: any libvirt call (virDomainGetName too)
			 * resets the thread's last error */
			virErrorPtr e = virGetLastError();
			char *msg = g_strdup(e && e->message ? e->message : "no answer");

			lab_err("guest agent of %s: %s", virDomainGetName(dom), msg);
			g_free(msg);
		}
		return NULL;
	}
	root = json_tokener_parse(reply);
	free(reply);
	if (root && json_object_object_get_ex(root, "return", &ret)) {
		*whole = root;
		return ret;
	}
	if (!quiet)
		lab_err("guest agent of %s: unexpected reply", virDomainGetName(dom));
	json_object_put(root);
	return NULL;
}

bool lab_agent_ping(virDomainPtr dom, int timeout_s)
{
	json_object *whole;
	json_object *ret = agent_call(dom, "{\"execute\":\"guest-ping\"}",
				      timeout_s, true, &whole);

	json_object_put(whole);
	return ret != NULL;
}

char *lab_agent_exec_request(const char *const *argv)
{
	json_object *req = json_object_new_object();
	json_object *args = json_object_new_object();
	json_object *arr = json_object_new_array();
	char *s;
	int i;

	for (i = 1; argv[i]; i++)
		json_object_array_add(arr, json_object_new_string(argv[i]));
	json_object_object_add(args, "path", json_object_new_string(argv[0]));
	json_object_object_add(args, "arg", arr);
	json_object_object_add(args, "capture-output",
			       json_object_new_boolean(1));
	json_object_object_add(req, "execute",
			       json_object_new_string("guest-exec"));
	json_object_object_add(req, "arguments", args);
	s = g_strdup(json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN));
	json_object_put(req);
	return s;
}

static char *decode_member(json_object *o, const char *name)
{
	json_object *v;
	guchar *raw;
	gsize len;
	char *s;

	if (!json_object_object_get_ex(o, name, &v))
		return g_strdup("");
	raw = g_base64_decode(json_object_get_string(v), &len);
	s = g_strndup((char *)raw, len);
	g_free(raw);
	return s;
}

/* Poll guest-exec-status until the process exits or time runs out. */
static int exec_wait(virDomainPtr dom, long pid, int timeout_s,
		     unsigned flags, bool (*stop)(void *), void *arg,
		     struct lab_exec_result *res)
{
	char *cmd = g_strdup_printf(
		"{\"execute\":\"guest-exec-status\",\"arguments\":{\"pid\":%ld}}",
		pid);
	double deadline = lab_now() + timeout_s;
	useconds_t delay = 50000;
	int rc = -1;

	while (!lab_interrupted || (flags & LAB_AGENT_UNINTERRUPTIBLE)) {
		json_object *whole, *exited, *code;
		json_object *ret = agent_call(dom, cmd, 10, false, &whole);

		if (!ret)
			break;
		if (json_object_object_get_ex(ret, "exited", &exited) &&
		    json_object_get_boolean(exited)) {
			res->exit_code = -1;
			if (json_object_object_get_ex(ret, "exitcode", &code))
				res->exit_code = json_object_get_int(code);
			else if (json_object_object_get_ex(ret, "signal", &code))
				res->exit_code = 128 + json_object_get_int(code);
			res->out = decode_member(ret, "out-data");
			res->err = decode_member(ret, "err-data");
			json_object_put(whole);
			rc = 0;
			break;
		}
		json_object_put(whole);
		if (lab_now() > deadline) {
			res->timed_out = true;
			rc = 1;
			break;
		}
		if (stop && stop(arg)) {
			rc = 1;
			break;
		}
		usleep(delay);
		if (delay < 500000)
			delay *= 2;
	}
	g_free(cmd);
	return rc;
}

int lab_agent_exec(virDomainPtr dom, const char *const *argv, int timeout_s,
		   unsigned flags, struct lab_exec_result *res)
{
	return lab_agent_exec_watch(dom, argv, timeout_s, flags, NULL, NULL, res);
}

int lab_agent_exec_watch(virDomainPtr dom, const char *const *argv,
			 int timeout_s, unsigned flags, bool (*stop)(void *),
			 void *arg, struct lab_exec_result *res)
{
	char *req = lab_agent_exec_request(argv);
	json_object *whole, *pid;
	json_object *ret = agent_call(dom, req, 10, false, &whole);
	int rc = -1;

	memset(res, 0, sizeof(*res));
	res->exit_code = -1;
	g_free(req);
	if (ret && json_object_object_get_ex(ret, "pid", &pid)) {
		res->pid = (long)json_object_get_int64(pid);
		rc = exec_wait(dom, res->pid, timeout_s, flags, stop, arg, res);
	}
	json_object_put(whole);
	if (!res->out)
		res->out = g_strdup("");
	if (!res->err)
		res->err = g_strdup("");
	return rc;
}

int lab_agent_sh(virDomainPtr dom, const char *cmd, int timeout_s,
		 unsigned flags, struct lab_exec_result *res)
{
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };

	return lab_agent_exec(dom, argv, timeout_s, flags, res);
}

int lab_agent_exec_collect(virDomainPtr dom, long pid, int timeout_s,
			   unsigned flags, struct lab_exec_result *res)
{
	lab_exec_result_clear(res);
	res->exit_code = -1;
	res->timed_out = false;
	return exec_wait(dom, pid, timeout_s, flags, NULL, NULL, res) == 0
		? 0 : -1;
}

int lab_agent_kill(virDomainPtr dom, long pid, bool group)
{
	char *grp = g_strdup_printf("%s%ld", group ? "-" : "", pid);
	const char *argv[] = { "/bin/kill", "-KILL", "--", grp, NULL };
	struct lab_exec_result r;
	int rc = lab_agent_exec(dom, argv, 10, LAB_AGENT_UNINTERRUPTIBLE, &r);

	rc = rc == 0 && r.exit_code == 0 ? 0 : -1;
	lab_exec_result_clear(&r);
	g_free(grp);
	return rc;
}

/* guest-file-open/read/close run in the agent itself: no process is
 * started in the guest (each exec costs a booting TCG guest ~0.2 s). */
char *lab_agent_read_small(virDomainPtr dom, const char *path, int timeout_s)
{
	json_object *req = json_object_new_object(), *args = json_object_new_object();
	json_object *whole, *ret;
	char *cmd, *out = NULL;
	long handle;

	json_object_object_add(args, "path", json_object_new_string(path));
	json_object_object_add(args, "mode", json_object_new_string("r"));
	json_object_object_add(req, "execute", json_object_new_string("guest-file-open"));
	json_object_object_add(req, "arguments", args);
	ret = agent_call(dom, json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN),
			 timeout_s, true, &whole);
	json_object_put(req);
	if (!ret)
		return NULL;
	handle = (long)json_object_get_int64(ret);
	json_object_put(whole);
	cmd = g_strdup_printf("{\"execute\":\"guest-file-read\",\"arguments\":"
			      "{\"handle\":%ld,\"count\":4096}}", handle);
	ret = agent_call(dom, cmd, timeout_s, true, &whole);
	if (ret)
		out = decode_member(ret, "buf-b64");
	json_object_put(whole);
	g_free(cmd);
	cmd = g_strdup_printf("{\"execute\":\"guest-file-close\",\"arguments\":"
			      "{\"handle\":%ld}}", handle);
	ret = agent_call(dom, cmd, timeout_s, true, &whole);
	json_object_put(whole);
	g_free(cmd);
	return out;
}

void lab_exec_result_clear(struct lab_exec_result *res)
{
	g_free(res->out);
	g_free(res->err);
	res->out = res->err = NULL;
}
