/* daemon/cmd_tail.h: the `tracetap` client subcommands that talk to a running tracetapd.
 *
 *   tracetap tail [URL] [--target T] [--id N] [--name NAME] [--thread NAME] [--text S]
 *                 [--history N] [--json] [--no-color] [--token TOKEN]
 *   tracetap record -o FILE [URL] [--format jsonl|trx|perfetto|ftrace]
 *                 [--duration S | --count N] [filters as for tail] [--token TOKEN]
 *   tracetap targets [URL] [--json] [--token TOKEN]
 *   tracetap status [URL] [--json] [--token TOKEN]
 *
 * URL: ws://HOST:PORT[/ws] or HOST:PORT (default ws://127.0.0.1:7733/ws). The token also
 * comes from $TRACETAP_TOKEN. Each returns the process exit status (0 ok, 1 failure, 2 usage).
 */
#ifndef TT_CMD_TAIL_H
#define TT_CMD_TAIL_H

int tt_cmd_tail(int argc, char **argv);
int tt_cmd_record(int argc, char **argv);
int tt_cmd_targets(int argc, char **argv);
int tt_cmd_status(int argc, char **argv);

#endif
