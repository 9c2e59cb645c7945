/* main.c - the `urisan` command: dispatch table and usage (urisan(1)). */
#include "cli.h"

#include <stdlib.h>
#ifdef URISAN_HAVE_MAIL
#include "urisan_mail.h"
#endif

#include <string.h>

/* Subcommands whose source file is absent are built without a handler:
   src/cli/meson.build defines URISAN_HAVE_<NAME> when the file exists. */
#ifndef URISAN_HAVE_EXTRACT
#define cmd_extract NULL
#endif
#ifndef URISAN_HAVE_SQUID
#define cmd_squid_acl NULL
#endif
#ifndef URISAN_HAVE_SERVE
#define cmd_serve NULL
#endif
#ifndef URISAN_HAVE_MILTER
#define cmd_milter NULL
#endif

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *synopsis;   /* after "urisan NAME" */
    const char *help;       /* what it does, its options, its exit status */
} cli_command;

static const cli_command commands[] = {
    { "check", cmd_check,
      "[--json] [--fields LIST] [--policy FILE] [--profile NAME] [--base URI] [--explain]\n"
      "       [--jobs N] [--progress|--no-progress] [--resolve [--dns-server ADDR[:PORT]]]\n"
      "       [URI...]\n"
      "       urisan check --format squid|zeek|combined|field:N [--json|--tsv]\n"
      "                    [--host NAME [--scheme http|https]] [...] [LOG...]",
      "Validate each URI, split it into components, list its risk flags and\n"
      "give the policy's verdict (allow, flag, deny). URIs come from the\n"
      "arguments, or one per line on standard input when there are none.\n"
      "\n"
      "  --json         one JSON object per URI (JSON Lines)\n"
      "  --policy FILE  apply the policy FILE on top of the built-in default\n"
      "  --profile NAME start from the built-in profile NAME (proxy, ssrf,\n"
      "                 mail, default) instead of the default policy\n"
      "  --base URI     resolve each URI against the absolute URI first and\n"
      "                 judge the result (dot_above_root on the merged path)\n"
      "  --fields LIST  --json with only these keys, in this order (comma-\n"
      "                 separated; also scheme, userinfo, host, host_type,\n"
      "                 port, path, query, fragment as keys of their own)\n"
      "  --format FMT   the operands are log files (none or -: standard input,\n"
      "                 plain or gzip): squid (native access.log), combined\n"
      "                 (Apache/nginx), zeek (http.log) or field:N (the Nth\n"
      "                 white-space separated field); JSON adds line, lineno\n"
      "  --tsv          with --format: VERDICT<TAB>REASONS<TAB>the log line\n"
      "  --host NAME    with --format combined: judge an origin-form line\n"
      "                 (/path) as SCHEME://NAME/path (vhost_combined lines\n"
      "                 name their own host and port, %v:%p)\n"
      "  --scheme NAME  http or https for --host (default: https for port\n"
      "                 443, else http)\n"
      "  --explain      for each reason, the rule that made it: FILE:LINE of\n"
      "                 the policy file or \"profile NAME\" (JSON key explain;\n"
      "                 text: (explain: REASON=ORIGIN ...) at the end)\n"
      "  --jobs N       judge on N worker threads (0: one per online core;\n"
      "                 default 1); the output is the same, in input order;\n"
      "                 each worker costs about 20 MiB (its host memo, batches)\n"
      "  --progress     lines, bytes and lines/s read so far on standard error\n"
      "                 once a second (the default when it is a terminal)\n"
      "  --no-progress  none\n"
      "  --resolve      look each URI's host up (A and AAAA, c-ares) and judge\n"
      "                 every address as an IP literal host is judged; denied\n"
      "                 (resolved_ip_denied) when any address is, and when the\n"
      "                 lookup fails (dns_nxdomain, dns_servfail, dns_timeout,\n"
      "                 dns_failed); JSON key resolve; text: (dns ...) at the\n"
      "                 end. Lookups run concurrently (64 in flight); not with\n"
      "                 --base, --format or --jobs\n"
      "  --dns-server ADDR[:PORT]  with --resolve: ask these servers (comma-\n"
      "                 separated, [IPv6]:PORT) instead of /etc/resolv.conf's\n"
      "\n"
      "Text output: one line per URI: VERDICT REASONS \"URI\" [-> \"RESOLVED\"]\n"
      "where REASONS is denied:A,B;flagged:C (either part when empty left\n"
      "out), or - when there are none.\n"
      "Exit status: 0 nothing denied, 1 something denied, 2 usage or I/O error.\n" },
    { "resolve", cmd_resolve,
      "[--non-strict] [--above-root=clamp|keep|reject] [--json] [--fields LIST] BASE [REF...]",
      "Resolve each reference against BASE (RFC 3986 section 5.2). References\n"
      "come from the arguments, or one per line on standard input.\n"
      "One line per reference: the result, or `error: CODE OFFSET MESSAGE`.\n"
      "\n"
      "  --non-strict        a reference with the base's scheme is relative\n"
      "                      (\"http:g\" is \"g\"; RFC 3986 5.2.2, RFC 2396 C)\n"
      "  --above-root=MODE   \"..\" above the root: clamp (RFC 3986, default),\n"
      "                      keep (RFC 2396), reject (an error)\n"
      "  --json              one JSON object per reference\n"
      "  --fields LIST       --json with only these keys, in this order\n"
      "\n"
      "Exit status: 0 all resolved, 1 some reference failed, 2 usage or I/O error.\n" },
    { "normalize", cmd_normalize,
      "[--json] [--fields LIST] [URI...]",
      "Print the RFC 3986 section 6 normal form of each URI (arguments, or one\n"
      "per line on standard input), or `error: CODE OFFSET MESSAGE`.\n"
      "\n"
      "  --json          one JSON object per URI\n"
      "  --fields LIST   --json with only these keys, in this order\n"
      "\n"
      "Exit status: 0 all normalised, 1 some URI failed, 2 usage or I/O error.\n" },
    { "equivalent", cmd_equivalent,
      "A B",
      "Say whether A and B are equal after normalisation; prints\n"
      "`equivalent` or `different`.\n"
      "\n"
      "Exit status: 0 equivalent, 1 not, 2 error (usage, or a URI that\n"
      "cannot be normalised).\n" },
    { "extract", cmd_extract,
      "[--mail] [--json] [--fields LIST] [--policy FILE] [--profile NAME] [--explain]\n"
      "       [--jobs N] [--progress|--no-progress] [--resolve [--dns-server ADDR[:PORT]]]\n"
      "       [FILE|-]",
      "Find URIs in free text (standard input, or FILE), delimited as\n"
      "RFC 2396 Appendix E and F say, and print one line per hit, with its\n"
      "flags and the policy's verdict.\n"
      "\n"
      "  --mail         the input is a mail message: every text part decoded\n"
      "                 (quoted-printable, base64, charset to UTF-8); HTML\n"
      "                 href/src attributes with entities decoded, and the\n"
      "                 link text (link_text_mismatch)\n"
      "  --json         one JSON object per hit\n"
      "  --fields LIST  --json with only these keys, in this order\n"
      "  --policy FILE  apply the policy FILE on top of the built-in default\n"
      "  --profile NAME start from the built-in profile NAME (mail, ...)\n"
      "  --explain      for each reason, the rule that made it (as check)\n"
      "  --jobs N       N worker threads (0: one per online core; default 1):\n"
      "                 text in pieces cut at line starts, a mailbox a message\n"
      "                 at a time; the output is the same, in input order\n"
      "  --progress     lines, bytes and lines/s read so far on standard error\n"
      "                 once a second (the default when it is a terminal)\n"
      "  --no-progress  none\n"
      "  --resolve      look each link's host up and judge every address (as\n"
      "                 check --resolve; JSON key resolve); rows are written\n"
      "                 in order once their answers are in; not with --jobs\n"
      "  --dns-server ADDR[:PORT]  with --resolve: ask these servers\n"
      "\n"
      "Input of any size is read a window at a time (memory does not grow\n"
      "with it); an mbox a message at a time, each at most 64 MiB.\n"
      "Text output: PART OFFSET CONTEXT VERDICT REASONS \"URI\" [\"DISPLAY\"]\n"
      "Exit status: 0 nothing denied, 1 something denied, 2 usage or I/O error.\n" },
    { "squid-acl", cmd_squid_acl,
      "[--policy FILE] [--profile NAME] [--quiet] [--resolve [--dns-server ADDR[:PORT]]]",
      "Run as a Squid external ACL helper: read one request per line on\n"
      "standard input, answer OK or ERR per line under the policy. At start\n"
      "it logs the policy in force (version, profile, policy file, number of\n"
      "rules) on standard error, which Squid writes to cache.log.\n"
      "\n"
      "  --policy FILE  apply the policy FILE on top of the built-in default\n"
      "  --profile NAME start from the built-in profile NAME (recommended:\n"
      "                 proxy for a forward proxy, ssrf for a reverse proxy)\n"
      "  --quiet        do not log the policy in force at start\n"
      "  --resolve      also look the URL's host up and judge every address\n"
      "                 (as check --resolve): ERR names the address and its\n"
      "                 class, or the failed lookup (doc/squid.md)\n"
      "  --dns-server ADDR[:PORT]  with --resolve: ask these servers\n" },
    { "serve", cmd_serve,
      "[--listen ADDR:PORT] [--policy FILE] [--trust LIST] [--threads N] ...",
      "Run an HTTP authorization service for gateways (nginx auth_request,\n"
      "HAProxy Lua, Envoy ext_authz, Traefik forwardAuth, Caddy forward_auth;\n"
      "doc/gateways.md). Each request's headers give the URI the gateway is\n"
      "about to forward; the answer is 200 (allow, flag) or 403 (deny) with\n"
      "X-Urisan-Verdict, X-Urisan-Deny-Reasons, X-Urisan-Flag-Reasons.\n"
      "GET /healthz answers 200 with the policy in force as JSON (version,\n"
      "profile, policy file, number of rules), which is also logged at start\n"
      "and on reload. GET /metrics answers the counters in the Prometheus\n"
      "text format. SIGHUP reloads the policy (a bad file keeps the old\n"
      "one), SIGTERM drains and exits 0.\n"
      "\n"
      "  --listen ADDR:PORT      numeric address (default 127.0.0.1:8181;\n"
      "                          port 0: any free port, logged at start)\n"
      "  --policy FILE           apply the policy FILE on top of the default\n"
      "  --profile NAME          start from the built-in profile NAME (ssrf, ...)\n"
      "  --trust LIST            URI sources, in precedence order (default\n"
      "                          original-url,original-uri,forwarded-uri;\n"
      "                          add target for Envoy)\n"
      "  --strip-prefix PATH     target source: remove PATH first (Envoy)\n"
      "  --threads N             worker threads (default 2)\n"
      "  --max-connections N     open connections at most (default 1024)\n"
      "  --max-per-client N      connections of one client address (default\n"
      "                          half of --max-connections; 0: no limit)\n"
      "  --max-header-bytes N    request line and headers (default 16384)\n"
      "  --idle-timeout SECONDS  close an idle connection (default 30)\n"
      "  --drain-timeout SECONDS SIGTERM: wait for answers (default 10)\n"
      "\n"
      "Exit status: 0 after SIGTERM, 2 usage, policy or listen error.\n" },
    { "milter", cmd_milter,
      "--socket SPEC [--policy FILE] [--profile NAME] [--on-deny ACTION] ...",
      "Run a Postfix/Sendmail mail filter (libmilter; doc/mail.md). Each\n"
      "message's links are scanned (liburisan-mail, homographs); the worst\n"
      "verdict decides: allow and flag add X-Urisan-Verdict and X-Urisan-Links\n"
      "(such headers from the sender are removed), deny rejects with 550 5.7.1\n"
      "naming the link and why. ACTION: accept, quarantine, reject, tempfail.\n"
      "\n"
      "  --socket SPEC         inet:PORT@127.0.0.1 or unix:PATH (required)\n"
      "  --policy FILE         apply the policy FILE on top of the default\n"
      "  --profile NAME        start from the built-in profile NAME (mail)\n"
      "  --on-deny ACTION      a link is denied (default reject)\n"
      "  --on-flag ACTION      a link is flagged (default accept)\n"
      "  --on-error ACTION     not scanned whole: not a message, out of\n"
      "                        memory, a bound reached (default tempfail)\n"
      "  --max-message BYTES   bytes kept per message (default 32M; k, M)\n"
      "  --timeout SECONDS     libmilter's MTA I/O timeout\n"
      "  --quiet               no log line per message on stderr\n"
      "  --drain-timeout SECONDS SIGTERM: wait for messages being judged\n"
      "                        (default 10)\n"
      "\n"
      "SIGHUP loads the policy again (a file with a mistake is not taken: the\n"
      "policy in force stays, the log says FILE:LINE:COLUMN); SIGTERM stops\n"
      "taking connections, answers the messages being judged and exits.\n"
      "\n"
      "Exit status: 0 after SIGTERM/SIGINT, 1 when libmilter stopped by\n"
      "itself, 2 usage, policy or socket error.\n" },
    { "policy", cmd_policy,
      "[--profile NAME] [--strict] check FILE | show",
      "check FILE: validate the policy FILE (on top of --profile NAME, else\n"
      "the default policy) and print the effective policy. Every mistake and\n"
      "every warning is reported on stderr as FILE:LINE:COLUMN: message 'word'\n"
      "(a mistyped name with \"did you mean\"). Warnings: a duplicate entry,\n"
      "a rule undone by a later one, allow-host and deny-host entries that\n"
      "overlap, '*.NAME' (NAME itself not covered), a rule no part of this\n"
      "build can apply.\n"
      "show: print the built-in profile NAME (default: default) as a policy\n"
      "file.\n"
      "\n"
      "  --profile NAME proxy, ssrf, mail or default\n"
      "  --strict       check: a warning fails too (exit 1)\n"
      "\n"
      "Exit status: 0 valid, 1 the policy has a mistake (or, with --strict,\n"
      "a warning), 2 usage error or unreadable FILE.\n" },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    }
    return NULL;
}

void cli_usage(FILE *fp, const char *cmd)
{
    const cli_command *c = cmd ? find_command(cmd) : NULL;
    if (c != NULL) {
        fprintf(fp, "usage: urisan %s %s\n\n%s", c->name, c->synopsis, c->help);
        return;
    }
    fputs("usage: urisan COMMAND [OPTIONS] [ARGS]\n"
          "       urisan COMMAND --help\n"
          "       urisan --help | --version\n"
          "\n"
          "Defensive RFC 3986 URI parser and sanitiser.\n"
          "\n"
          "Commands:\n", fp);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].synopsis);
    fputs("\n"
          "URIs come from the arguments, or one per line on standard input\n"
          "(a trailing CR of CRLF is stripped); exactly one answer per input.\n"
          "See urisan(1).\n", fp);
}

int main(int argc, char **argv)
{
#ifdef URISAN_HAVE_MAIL
    /* where the readers of binary attachments are, when not installed
       (the tests' build tree): the library reads no environment */
    const char *readers = getenv("URISAN_READERS");
    if (readers != NULL && readers[0] != '\0' && urisan_mail_set_readers(readers) != 0)
        return cli_fail(NULL, "URISAN_READERS: not a usable path for urisan-readers "
                              "(longer than 4095 bytes, or built without the readers)");
#endif
    if (argc < 2)
        return cli_usage_error(NULL, "no command given");
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 ||
        strcmp(name, "help") == 0) {
        if (argc > 2 && strcmp(name, "help") == 0) {
            if (find_command(argv[2]) == NULL)
                return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
            cli_usage(stdout, argv[2]);
        } else {
            cli_usage(stdout, NULL);
        }
        return cli_finish(NULL, CLI_EXIT_OK);
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("urisan %s\n", urisan_version());
        return cli_finish(NULL, CLI_EXIT_OK);
    }
    const cli_command *c = find_command(name);
    if (c == NULL) {
        if (name[0] == '-')
            return cli_usage_error(NULL, "unknown option '%s'", name);
        return cli_usage_error(NULL, "unknown command '%s'", name);
    }
    if (c->run == NULL) {
        /* Still answer --help: the usage text is here. */
        for (int i = 2; i < argc; i++) {
            if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                cli_usage(stdout, c->name);
                return cli_finish(NULL, CLI_EXIT_OK);
            }
        }
        return cli_usage_error(c->name, "not built in this binary");
    }
    return c->run(argc - 1, argv + 1);
}
