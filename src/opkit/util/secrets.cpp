#include "opkit/util/secrets.hpp"

#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

namespace opkit {

namespace {

const char* const k_mask = "****";
// Shorter remembered values would mask ordinary words and numbers ("3600",
// a presigned URL's expiry): a password or a header's value from 4 bytes, a
// query's value (tokens, signatures) from 8.
constexpr size_t k_min_secret = 4;
constexpr size_t k_min_query_secret = 8;

// Header names whose value is a credential wherever a line shows one.
const char* const k_credential_headers[] = {"authorization", "proxy-authorization", "cookie",       "set-cookie",
                                            "x-api-key",     "private-token",       "x-auth-token", "x-jfrog-art-api"};

std::mutex g_mutex;

// Longest first: a secret that holds another is masked whole, not as "****" and the rest.
struct LongestFirst
{
  bool operator()(const std::string& a, const std::string& b) const
  {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  }
};

std::set<std::string, LongestFirst>&
remembered()
{
  static auto* secrets = new std::set<std::string, LongestFirst>; // NOLINT: lives as long as the process
  return *secrets;
}

bool
is_scheme_char(char c)
{
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
}

// Where a URL in free text ends: at a blank, a quote, an angle bracket, or the text's end.
size_t
url_end(std::string_view text, size_t from)
{
  size_t end = from;
  while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end])) == 0
         && std::strchr("\"'<>`", text[end]) == nullptr && text[end] != '\0') {
    ++end;
  }
  while (end > from && std::strchr(",.;:!?)]}", text[end - 1]) != nullptr) {
    --end; // the sentence's punctuation, not the URL's
  }
  return end;
}

// The password and the query values of one URL.
std::string
mask_url(std::string_view url)
{
  std::string shown(url);
  size_t authority = shown.find("://");
  if (authority == std::string::npos) {
    return shown;
  }
  authority += 3;
  size_t end = shown.find_first_of("/?#", authority);
  size_t at = shown.rfind('@', end == std::string::npos ? std::string::npos : end);
  size_t colon = shown.find(':', authority);
  if (at != std::string::npos && at >= authority && colon != std::string::npos && colon < at && colon + 1 != at) {
    shown = shown.substr(0, colon + 1) + k_mask + shown.substr(at); // a user name alone is no secret
  }
  size_t query = shown.find('?', authority);
  if (query == std::string::npos) {
    return shown;
  }
  size_t fragment = std::min(shown.find('#', query), shown.size());
  std::vector<std::string> parameters = split(shown.substr(query + 1, fragment - query - 1), '&');
  for (std::string& parameter : parameters) {
    size_t equals = parameter.find('=');
    if (equals != std::string::npos && equals + 1 < parameter.size()) {
      parameter = parameter.substr(0, equals + 1) + k_mask; // a name alone, or an empty value, hides nothing
    }
  }
  return shown.substr(0, query + 1) + join(parameters, "&") + shown.substr(fragment);
}

// Text that is one header as -H takes it ("Name: value"), not a URL: its value masked.
bool
mask_whole_header(std::string& text)
{
  size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || text.compare(colon, 3, "://") == 0
      || !std::all_of(text.begin(), text.begin() + static_cast<long>(colon), is_http_token_char)
      || colon + 1 == text.size() || text[colon + 1] != ' ') {
    return false;
  }
  text = text.substr(0, colon + 2) + k_mask;
  return true;
}

// A credential header's value anywhere in a line ("... Authorization: Bearer x"), to the line's end.
void
mask_credential_headers(std::string& text)
{
  std::string lower = ascii_lower(text);
  for (const char* name : k_credential_headers) {
    std::string needle = std::string(name) + ":";
    for (size_t at = lower.find(needle); at != std::string::npos; at = lower.find(needle, at + needle.size())) {
      if (at > 0 && is_http_token_char(lower[at - 1])) {
        continue; // part of a longer name
      }
      size_t value = at + needle.size();
      while (value < text.size() && text[value] == ' ') {
        ++value;
      }
      size_t end = text.find('\n', value);
      end = end == std::string::npos ? text.size() : end;
      if (end > value && text.compare(value, end - value, k_mask) != 0) {
        text.replace(value, end - value, k_mask);
        lower.replace(value, end - value, k_mask);
      }
    }
  }
}

} // namespace

bool
is_http_token_char(char c)
{
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

std::string
mask_header(std::string_view header)
{
  std::string shown(header);
  return mask_whole_header(shown) ? shown : mask_secrets(header);
}

std::string
mask_secrets(std::string_view text)
{
  std::string shown(text);
  // Every URL in the text.
  std::string out;
  size_t done = 0;
  for (size_t at = shown.find("://"); at != std::string::npos; at = shown.find("://", at + 3)) {
    size_t begin = at;
    while (begin > done && is_scheme_char(shown[begin - 1])) {
      --begin;
    }
    if (begin == at || std::isalpha(static_cast<unsigned char>(shown[begin])) == 0) {
      continue;
    }
    size_t end = url_end(shown, at + 3);
    out.append(shown, done, begin - done);
    out += mask_url(std::string_view(shown).substr(begin, end - begin));
    done = end;
    at = end > 3 ? end - 3 : end;
  }
  out.append(shown, done, std::string::npos);
  mask_credential_headers(out);
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const std::string& secret : remembered()) {
    for (size_t at = out.find(secret); at != std::string::npos; at = out.find(secret, at + std::strlen(k_mask))) {
      out.replace(at, secret.size(), k_mask);
    }
  }
  return out;
}

void
remember_secrets(std::string_view url_or_header)
{
  std::vector<std::string> found;
  std::string text(url_or_header);
  size_t colon = text.find(':');
  if (colon != std::string::npos && colon > 0 && text.compare(colon, 3, "://") != 0
      && std::all_of(text.begin(), text.begin() + static_cast<long>(colon), is_http_token_char)) {
    std::string value(trim(text.substr(colon + 1)));
    found.push_back(value);
    size_t space = value.find(' '); // "Bearer <token>", "Basic <base64>"
    if (space != std::string::npos) {
      found.push_back(std::string(trim(value.substr(space + 1))));
    }
  } else if (size_t authority = text.find("://"); authority != std::string::npos) {
    authority += 3;
    size_t end = text.find_first_of("/?#", authority);
    size_t at = text.rfind('@', end == std::string::npos ? std::string::npos : end);
    size_t pass = text.find(':', authority);
    if (at != std::string::npos && at >= authority && pass != std::string::npos && pass < at) {
      found.push_back(text.substr(pass + 1, at - pass - 1));
    }
    size_t query = text.find('?', authority);
    if (query != std::string::npos) {
      size_t fragment = std::min(text.find('#', query), text.size());
      for (const std::string& parameter : split(text.substr(query + 1, fragment - query - 1), '&')) {
        size_t equals = parameter.find('=');
        if (equals != std::string::npos && parameter.size() - equals - 1 >= k_min_query_secret) {
          found.push_back(parameter.substr(equals + 1));
        }
      }
    }
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const std::string& secret : found) {
    if (secret.size() >= k_min_secret && secret != k_mask) {
      remembered().insert(secret);
    }
  }
}

} // namespace opkit
