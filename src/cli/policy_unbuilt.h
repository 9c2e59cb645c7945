/*
 * policy_unbuilt.h - the rules of a policy that no door of a build can
 * apply: a rule on a flag that only a layer the build lacks sets (`urisan
 * policy check` warns of each). Pure: the layers are an argument, so a
 * test can ask about any build.
 */
#ifndef URISAN_CLI_POLICY_UNBUILT_H
#define URISAN_CLI_POLICY_UNBUILT_H

#include "urisan.h"

#define CLI_LAYER_HOST 1u /* liburisan-host: homograph, invisible_char, host_uts46 */
#define CLI_LAYER_MAIL 2u /* liburisan-mail: link_text_mismatch, mail_limit */

/* One rule no door sets: its line of the text, the flag, the layer
   missing ("host judgement (ICU, libidn2, libpsl)", "mail (liburisan-mail)"). */
typedef void (*cli_unbuilt_fn)(void *ctx, size_t line, const char *flag, const char *layer);

/* Each rule of the last text parsed into p (a deny, flag or allow line;
   a profile's rules are not the text's) on a flag that only a layer in
   missing (CLI_LAYER_*) sets, in flag order, to fn. Their count. */
size_t cli_unbuilt_rules(const urisan_policy *p, unsigned missing, cli_unbuilt_fn fn, void *ctx);

#endif
