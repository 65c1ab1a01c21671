/* cli.h - the commands that live in src/cli/ (lab.c's table points here). */
#ifndef LAB_CLI_H
#define LAB_CLI_H

/* `lab hosts [--hosts FILE] [sync NAME [--kernel K] | clean NAME]` */
int cmd_hosts(int argc, char **argv);

#endif
