/* session.c - see session.h. */
#include "jobs/session.h"
#include "guests/instance.h"
#include "util/util.h"
#include "virt/conn.h"

#include <string.h>

static int open_up(struct lab_session *s)
{
	if (lab_inst_open(&s->in, false) != 0)
		return -1;
	if (!lab_inst_is_up(&s->in))
		return 1;
	return lab_inst_attach(&s->in) == 0 ? 0 : -1;
}

int lab_session_up(struct lab_session *s, const struct lab_up_opts *up,
		   bool reuse, bool *host_lost)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->in.lock_fd = -1;
	s->host = up->host;
	s->hosts_file = up->hosts_file;
	*host_lost = false;
	if (reuse) {
		rc = open_up(s);
		if (rc <= 0)
			return rc == 0 ? 0 : 1;
		lab_inst_close(&s->in); /* lab up takes the lock itself */
	}
	rc = lab_up(up);
	*host_lost = rc == 1 && up->host && !lab_host_answers(up->hosts_file, up->host);
	if (rc != 0)
		return rc;
	s->brought_up = true;
	return open_up(s) == 0 ? 0 : 1;
}

int lab_session_run(struct lab_session *s, const struct lab_run_opts *ro,
		    char **run_dir)
{
	return lab_run_with(&s->in, ro, run_dir);
}

void lab_session_end(struct lab_session *s, bool keep)
{
	if (s->brought_up && !keep) {
		lab_phase_begin("down");
		lab_inst_teardown(&s->in);
		lab_phase_end();
	}
	lab_inst_close(&s->in);
}

int lab_session_once(const struct lab_up_opts *up, const struct lab_run_opts *ro,
		     bool keep, char **run_dir, bool *host_lost)
{
	struct lab_session s;
	int rc = lab_session_up(&s, up, false, host_lost);

	if (rc != 0) {
		lab_inst_close(&s.in);
		return 1;
	}
	rc = lab_session_run(&s, ro, run_dir);
	*host_lost = rc == 3;
	lab_session_end(&s, keep);
	if (rc == 130 || rc == 2 || (rc == 3 && up->host)) {
		g_free(*run_dir);
		*run_dir = NULL;
		return 1;
	}
	return *run_dir ? 0 : 1;
}
