#pragma once

// The one masking of secrets in what opkit shows: every line it prints on
// stderr (logs, progress, errors, and what it passes through from pip or a
// server) and the URLs its results name go through mask_secrets.
#include <string>
#include <string_view>

namespace opkit {

// `text` with its secrets as "****": in every URL in it, the password and the
// query's values, as pip shows a password ("https://me:****@host/simple?token=****",
// a presigned URL's signature too); a credential header's value in a line
// ("Authorization: ..."); and every secret remembered below, wherever it
// appears (a server's error page echoing the request's path, without its
// host). Anything else is unchanged.
std::string
mask_secrets(std::string_view text);

// A header as -H takes it ("X-Name: value"): its value masked, whatever the name.
std::string
mask_header(std::string_view header);

// Remembers the secrets of a URL (its password, its query's values) or of a
// header ("Name: value": the value), for this process: mask_secrets hides
// them wherever they appear later. A password or header value shorter than 4
// bytes, or a query value shorter than 8, is not remembered (it would mask
// ordinary words and numbers; in a URL it is masked all the same).
void
remember_secrets(std::string_view url_or_header);

// RFC 9110's token characters (a header's name).
bool
is_http_token_char(char c);

} // namespace opkit
