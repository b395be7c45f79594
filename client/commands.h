/* client/commands.h: subcommands of the `tracetap` client; each returns the exit status. */
#ifndef TT_COMMANDS_H
#define TT_COMMANDS_H

int tt_cmd_decode(int argc, char **argv);
int tt_cmd_analyze(int argc, char **argv);
int tt_cmd_top(int argc, char **argv);
int tt_cmd_layout(int argc, char **argv);

#endif
