/* client/cmd_tail.h: the `tracetap` client subcommands that talk to a running tracetapd:
 * tail and record (a WebSocket subscription, cmd_tail.c), targets, status and export (one HTTP
 * request each, cmd_status.c). Their options and help are in cli.c (`tracetap COMMAND --help`).
 * Each returns the process exit status: 0 ok, 1 failure (one line on stderr), 2 usage.
 */
#ifndef TT_CMD_TAIL_H
#define TT_CMD_TAIL_H

int tt_cmd_tail(int argc, char **argv);
int tt_cmd_record(int argc, char **argv);
int tt_cmd_targets(int argc, char **argv);
int tt_cmd_status(int argc, char **argv);
int tt_cmd_export(int argc, char **argv);
int tt_cmd_captures(int argc, char **argv);

#endif
