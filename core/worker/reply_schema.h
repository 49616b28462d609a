// The types of the fields a `tilec worker` reply or progress event may carry, checked by the
// client before anyone reads them. Callers read replies with nlohmann's value()/get<>(),
// which throw on a field of the wrong type, so a broken or foreign worker replying
// {"ok": "yes"} would otherwise take `tilec run`, a tune or the playground down with an
// internal error; a reply that fails this check becomes a "protocol" failure instead.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace tp::worker {

// What is wrong with the reply to a request of `op` ("hello", "load", "run", "bench", ...):
// the first field whose type differs from the protocol's, or a field an ok reply must have,
// e.g. "field `check.ok` is a string, expected a boolean". Empty when the reply is usable.
std::optional<std::string> reply_type_error(const std::string& op, const nlohmann::json& reply);

// The same for a progress event ({"event": ..., "stage": ..., "done": ..., "total": ...}).
std::optional<std::string> event_type_error(const nlohmann::json& event);

}  // namespace tp::worker
