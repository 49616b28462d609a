// Field types of worker replies and events (reply_schema.h). Rules are paths into the reply:
// `a.b` a member of an object, `a.*` every member, `a[]` every element of an array. A rule
// says nothing about a field that is absent unless it is required of an ok reply.
#include "worker/reply_schema.h"

#include <string_view>
#include <vector>

namespace tp::worker {

namespace {

using Json = nlohmann::json;

enum class Type { Bool, Number, String, Object, Array, ObjectOrNull };

struct Rule {
    const char* path;
    Type type;
    bool required_when_ok = false;
};

const char* type_name(Type t) {
    switch (t) {
        case Type::Bool: return "a boolean";
        case Type::Number: return "a number";
        case Type::String: return "a string";
        case Type::Object: return "an object";
        case Type::Array: return "an array";
        case Type::ObjectOrNull: return "an object or null";
    }
    return "?";
}

const char* json_type_name(const Json& j) {
    switch (j.type()) {
        case Json::value_t::null: return "null";
        case Json::value_t::boolean: return "a boolean";
        case Json::value_t::string: return "a string";
        case Json::value_t::object: return "an object";
        case Json::value_t::array: return "an array";
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned:
        case Json::value_t::number_float: return "a number";
        default: return "not a value";
    }
}

bool has_type(const Json& j, Type t) {
    switch (t) {
        case Type::Bool: return j.is_boolean();
        case Type::Number: return j.is_number();
        case Type::String: return j.is_string();
        case Type::Object: return j.is_object();
        case Type::Array: return j.is_array();
        case Type::ObjectOrNull: return j.is_object() || j.is_null();
    }
    return false;
}

// Checks `rule` against `node` from path segment `rest` on; `where` names `node` for messages.
std::optional<std::string> check(const Json& node, std::string_view rest, const Rule& rule, const std::string& where,
                                 bool ok_reply) {
    if (rest.empty()) {
        if (has_type(node, rule.type)) return std::nullopt;
        return "field `" + where + "` is " + json_type_name(node) + ", expected " + type_name(rule.type);
    }
    size_t dot = rest.find('.');
    std::string_view seg = rest.substr(0, dot);
    std::string_view tail = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    bool each = seg.size() > 2 && seg.substr(seg.size() - 2) == "[]";
    if (each) seg.remove_suffix(2);
    // Only an object has members; a container of the wrong kind is its own rule's business.
    if (!node.is_object()) return std::nullopt;
    std::string prefix = where.empty() ? "" : where + ".";
    auto one = [&](const std::string& key, const Json& child) -> std::optional<std::string> {
        if (!each) return check(child, tail, rule, prefix + key, ok_reply);
        if (!child.is_array()) return std::nullopt;
        for (size_t i = 0; i < child.size(); ++i)
            if (auto e = check(child[i], tail, rule, prefix + key + "[" + std::to_string(i) + "]", ok_reply)) return e;
        return std::nullopt;
    };
    if (seg == "*") {
        for (auto it = node.begin(); it != node.end(); ++it)
            if (auto e = one(it.key(), it.value())) return e;
        return std::nullopt;
    }
    std::string key(seg);
    auto it = node.find(key);
    if (it == node.end()) {
        if (rule.required_when_ok && ok_reply && tail.empty() && !each) return "field `" + prefix + key + "` is missing";
        return std::nullopt;
    }
    return one(key, *it);
}

std::optional<std::string> check_rules(const Json& j, const std::vector<Rule>& rules, bool ok_reply) {
    if (!j.is_object()) return std::string("the message is ") + json_type_name(j) + ", expected an object";
    for (const Rule& r : rules)
        if (auto e = check(j, r.path, r, "", ok_reply)) return e;
    return std::nullopt;
}

// What `check_against_interpreter` returns, for `run` and `bench`.
void add_check_rules(std::vector<Rule>& v) {
    v.insert(v.end(), {{"check", Type::Object},
                       {"check.ok", Type::Bool},
                       {"check.outputs", Type::Array},
                       {"check.outputs[]", Type::Object},
                       {"check.outputs[].name", Type::String},
                       {"check.outputs[].pass", Type::Bool},
                       {"check.outputs[].rel_fro", Type::Number},
                       {"check.outputs[].tol", Type::Number}});
}

std::vector<Rule> rules_for(const std::string& op) {
    std::vector<Rule> v = {{"ok", Type::Bool, true},  {"kind", Type::String},        {"error", Type::String},
                           {"fatal", Type::Bool},     {"printed", Type::String},     {"diagnostics", Type::String},
                           {"cuda_error", Type::Number}};
    if (op == "hello") {
        v.insert(v.end(), {{"version", Type::String},
                           {"protocol", Type::Number},
                           {"host", Type::String},
                           {"pid", Type::Number},
                           {"device", Type::ObjectOrNull, true},
                           {"device.name", Type::String},
                           {"device.target", Type::String},
                           {"device.arch", Type::String},
                           {"device.sm_count", Type::Number},
                           {"device.total_bytes", Type::Number},
                           {"device.l2_bytes", Type::Number},
                           {"device.max_smem_optin", Type::Number},
                           {"device.pci_bus_id", Type::String},
                           {"driver", Type::String},
                           {"why", Type::String}});
    } else if (op == "load") {
        v.insert(v.end(), {{"kernel", Type::Object, true},
                           {"kernel.name", Type::String},
                           {"kernel.factory", Type::String},
                           {"kernel.bound_params", Type::Object, true},
                           {"kernel.bound_params.*", Type::String},
                           {"kernel.params", Type::Array},
                           {"target", Type::String},
                           {"compile_ms", Type::Number}});
    } else if (op == "run") {
        v.insert(v.end(), {{"wall_ms", Type::Number}, {"files", Type::Array}});
        // A kernel compiled with `tp.timeline`: the Chrome trace of its stamps, or why none.
        v.insert(v.end(), {{"timeline", Type::Object},
                           {"timeline.trace", Type::Object},
                           {"timeline.records", Type::Number},
                           {"timeline.dropped", Type::Number},
                           {"timeline.error", Type::String},
                           {"timeline_note", Type::String}});
        add_check_rules(v);
        // A CPU run (the interpreter or the LLVM JIT): what it ran, and a refusal over the memory budget.
        v.insert(v.end(), {{"device", Type::String},
                           {"note", Type::String},
                           {"outputs", Type::Object},
                           {"outputs.*", Type::Object},
                           {"interp", Type::Object},
                           {"interp.*", Type::Number},
                           {"engine", Type::String},
                           {"jit_note", Type::String},
                           {"check.against", Type::String},
                           {"needs_bytes", Type::Number},
                           {"budget_bytes", Type::Number},
                           {"reduce", Type::Array},
                           {"reduce[]", Type::String},
                           // `check_races`: the race checker's scope and findings.
                           {"races", Type::Object},
                           {"races.scope", Type::String},
                           {"races.findings", Type::Array},
                           {"races.findings[]", Type::Object},
                           {"races.findings[].kind", Type::String},
                           {"races.findings[].message", Type::String},
                           {"races.findings[].line", Type::Number},
                           {"races.findings[].col", Type::Number}});
    } else if (op == "bench") {
        for (const char* f : {"ours.median_ms", "ours.min_ms", "ours.spread_pct", "ours.tflops", "ours.gbps"})
            v.push_back({f, Type::Number});
        v.push_back({"ours", Type::Object});
        add_check_rules(v);
    }
    return v;
}

}  // namespace

std::optional<std::string> reply_type_error(const std::string& op, const Json& reply) {
    bool ok_reply = reply.is_object() && reply.contains("ok") && reply["ok"] == true;
    return check_rules(reply, rules_for(op), ok_reply);
}

std::optional<std::string> event_type_error(const Json& event) {
    static const std::vector<Rule> rules = {
        {"stage", Type::String}, {"done", Type::Number}, {"total", Type::Number}, {"heartbeat", Type::Bool}};
    return check_rules(event, rules, false);
}

}  // namespace tp::worker
