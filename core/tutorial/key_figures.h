// The one-line key figure of a tutorial section, read from the JSON its tilec command printed
// (doctor, run, bench, sweep/tune, inspect), and the error a failed command's JSON carries.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tileplay/tutorial.h"

namespace tp::tutorial {

std::string key_figure(KeyFigure kind, const nlohmann::json& out, bool gpu);
std::string json_error(const nlohmann::json& out);

}  // namespace tp::tutorial
