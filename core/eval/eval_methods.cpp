// Bound methods of Python str / list / tuple / dict values (`", ".join(xs)`, `xs.append(x)`,
// `d.items()`, ...): each returns a builtin closed over its receiver. Split from eval_attr.cpp
// so attribute lookup there stays about IR values, buffers and modules.
#include <algorithm>

#include "eval/interp.h"

namespace tp::eval {

namespace {

Value method(const std::string& name, std::function<Value(Evaluator&, CallArgs&)> fn) { return make_builtin(name, std::move(fn)); }

}  // namespace

int64_t norm_index(Evaluator& ev, int64_t i, size_t n, Span span) {
    if (i < 0) i += static_cast<int64_t>(n);
    if (i < 0 || i >= static_cast<int64_t>(n)) ev.fail(DiagKind::PythonException, span, {"IndexError: index out of range"});
    return i;
}

std::optional<Value> str_method(const std::string& s, const std::string& name) {
    if (name == "format")
        return method("str.format", [s](Evaluator& ev, CallArgs& a) {
            std::string out;
            size_t next = 0;
            for (size_t i = 0; i < s.size(); ++i) {
                if (s[i] == '{' && i + 1 < s.size() && s[i + 1] == '{') { out += '{'; ++i; continue; }
                if (s[i] == '}' && i + 1 < s.size() && s[i + 1] == '}') { out += '}'; ++i; continue; }
                if (s[i] != '{') { out += s[i]; continue; }
                size_t close = s.find('}', i);
                if (close == std::string::npos) break;
                std::string field = s.substr(i + 1, close - i - 1);
                std::string key = field.substr(0, field.find(':'));
                const Value* val = nullptr;
                if (key.empty()) { if (next < a.pos.size()) val = &a.pos[next++]; }
                else if (std::isdigit(static_cast<unsigned char>(key[0]))) { size_t k = std::stoul(key); if (k < a.pos.size()) val = &a.pos[k]; }
                else for (const auto& [kn, kv] : a.kw) if (kn == key) val = &kv;
                if (!val) ev.fail(DiagKind::PythonException, a.span, {"IndexError: missing value for `{" + key + "}`"});
                out += to_str(*val);
                i = close;
            }
            return Value::str(out);
        });
    if (name == "join")
        return method("str.join", [s](Evaluator& ev, CallArgs& a) {
            ArgReader r(ev, a, "str.join", {"iterable"});
            std::string out;
            bool first = true;
            for (const auto& x : ev.iterate(r.require(0), r.span(0))) {
                if (!first) out += s;
                first = false;
                out += ev.as_str(x, r.span(0), "str.join item");
            }
            return Value::str(out);
        });
    if (name == "split")
        return method("str.split", [s](Evaluator& ev, CallArgs& a) {
            ArgReader r(ev, a, "str.split", {"sep"});
            std::vector<Value> parts;
            const Value* sepv = r.get(0);
            if (!sepv || sepv->is_none()) {
                size_t i = 0;
                while (i < s.size()) {
                    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
                    size_t j = i;
                    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
                    if (j > i) parts.push_back(Value::str(s.substr(i, j - i)));
                    i = j;
                }
            } else {
                std::string sep = ev.as_str(*sepv, r.span(0), "sep");
                size_t i = 0, k;
                while (!sep.empty() && (k = s.find(sep, i)) != std::string::npos) { parts.push_back(Value::str(s.substr(i, k - i))); i = k + sep.size(); }
                parts.push_back(Value::str(s.substr(i)));
            }
            return Value::list(std::move(parts));
        });
    if (name == "strip")
        return method("str.strip", [s](Evaluator&, CallArgs&) {
            size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
            return Value::str(b == std::string::npos ? "" : s.substr(b, e - b + 1));
        });
    if (name == "upper" || name == "lower")
        return method("str." + name, [s, up = name == "upper"](Evaluator&, CallArgs&) {
            std::string o = s;
            for (auto& c : o) c = static_cast<char>(up ? std::toupper(static_cast<unsigned char>(c)) : std::tolower(static_cast<unsigned char>(c)));
            return Value::str(o);
        });
    if (name == "isdigit" || name == "isalpha" || name == "isalnum")  // ASCII, as the examples' dtype names are
        return method("str." + name, [s, name](Evaluator&, CallArgs&) {
            auto ok = [&](unsigned char c) {
                return name == "isdigit" ? std::isdigit(c) != 0 : name == "isalpha" ? std::isalpha(c) != 0 : std::isalnum(c) != 0;
            };
            return Value::boolean(!s.empty() && std::all_of(s.begin(), s.end(), [&](char c) { return ok(static_cast<unsigned char>(c)); }));
        });
    if (name == "startswith" || name == "endswith")
        return method("str." + name, [s, start = name == "startswith"](Evaluator& ev, CallArgs& a) {
            ArgReader r(ev, a, start ? "str.startswith" : "str.endswith", {"prefix"});
            std::string p = ev.as_str(r.require(0), r.span(0), "prefix");
            bool ok = p.size() <= s.size() && (start ? s.compare(0, p.size(), p) == 0 : s.compare(s.size() - p.size(), p.size(), p) == 0);
            return Value::boolean(ok);
        });
    if (name == "replace")
        return method("str.replace", [s](Evaluator& ev, CallArgs& a) {
            ArgReader r(ev, a, "str.replace", {"old", "new"});
            std::string o = ev.as_str(r.require(0), r.span(0), "old"), n = ev.as_str(r.require(1), r.span(1), "new"), out;
            size_t i = 0, k;
            while (!o.empty() && (k = s.find(o, i)) != std::string::npos) { out += s.substr(i, k - i) + n; i = k + o.size(); }
            return Value::str(out + s.substr(i));
        });
    return std::nullopt;
}

std::optional<Value> seq_method(const Value& v, const std::string& name) {
    Value self = v;
    if (name == "index" || name == "count")
        return method(name, [self, count = name == "count"](Evaluator& ev, CallArgs& a) {
            ArgReader r(ev, a, count ? "count" : "index", {"value"});
            const Value& x = r.require(0);
            int64_t n = 0;
            const auto& items = items_of(self);
            for (size_t i = 0; i < items.size(); ++i) {
                if (!values_equal(items[i], x)) continue;
                if (!count) return Value::integer(static_cast<int64_t>(i));
                ++n;
            }
            if (!count) ev.fail(DiagKind::PythonException, a.span, {"ValueError: " + repr(x) + " is not in list"});
            return Value::integer(n);
        });
    if (v.kind == VK::Tuple) return std::nullopt;
    if (name == "append")
        return method("list.append", [self](Evaluator& ev, CallArgs& a) {
            ArgReader r(ev, a, "list.append", {"value"});
            items_of(self).push_back(r.require(0));
            return Value::none();
        });
    if (name == "extend")
        return method("list.extend", [self](Evaluator& ev, CallArgs& a) {
            ArgReader r(ev, a, "list.extend", {"iterable"});
            auto add = ev.iterate(r.require(0), r.span(0));
            items_of(self).insert(items_of(self).end(), add.begin(), add.end());
            return Value::none();
        });
    if (name == "insert")
        return method("list.insert", [self](Evaluator& ev, CallArgs& a) {
            ArgReader r(ev, a, "list.insert", {"index", "value"});
            auto& items = items_of(self);
            int64_t i = ev.as_int(r.require(0), r.span(0), "index");
            if (i < 0) i = std::max<int64_t>(0, i + static_cast<int64_t>(items.size()));
            i = std::min<int64_t>(i, static_cast<int64_t>(items.size()));
            items.insert(items.begin() + i, r.require(1));
            return Value::none();
        });
    if (name == "pop")
        return method("list.pop", [self](Evaluator& ev, CallArgs& a) {
            ArgReader r(ev, a, "list.pop", {"index"});
            auto& items = items_of(self);
            if (items.empty()) ev.fail(DiagKind::PythonException, a.span, {"IndexError: pop from empty list"});
            int64_t i = norm_index(ev, r.get(0) ? ev.as_int(*r.get(0), r.span(0), "index") : -1, items.size(), a.span);
            Value x = items[static_cast<size_t>(i)];
            items.erase(items.begin() + i);
            return x;
        });
    if (name == "reverse")
        return method("list.reverse", [self](Evaluator&, CallArgs&) {
            std::reverse(items_of(self).begin(), items_of(self).end());
            return Value::none();
        });
    if (name == "copy") return method("list.copy", [self](Evaluator&, CallArgs&) { return Value::list(items_of(self)); });
    return std::nullopt;
}

std::optional<Value> dict_method(const Value& v, const std::string& name) {
    auto d = std::static_pointer_cast<DictObj>(v.obj);
    if (name == "items" || name == "keys" || name == "values")
        return method("dict." + name, [d, name](Evaluator&, CallArgs&) {
            std::vector<Value> out;
            for (const auto& [k, x] : d->items)
                out.push_back(name == "items" ? Value::tuple({k, x}) : name == "keys" ? k : x);
            return Value::list(std::move(out));
        });
    if (name == "get" || name == "pop" || name == "setdefault")
        return method("dict." + name, [d, name](Evaluator& ev, CallArgs& a) {
            ArgReader r(ev, a, "dict." + name, {"key", "default"});
            const Value& k = r.require(0);
            for (size_t i = 0; i < d->items.size(); ++i) {
                if (!values_equal(d->items[i].first, k)) continue;
                Value x = d->items[i].second;
                if (name == "pop") d->items.erase(d->items.begin() + static_cast<long>(i));
                return x;
            }
            if (name == "pop" && !r.get(1)) ev.fail(DiagKind::PythonException, a.span, {"KeyError: " + repr(k)});
            Value dflt = r.get_or(1, Value::none());
            if (name == "setdefault") d->items.emplace_back(k, dflt);
            return dflt;
        });
    if (name == "update")
        return method("dict.update", [d](Evaluator& ev, CallArgs& a) {
            auto put = [&](const Value& k, const Value& x) {
                for (auto& e : d->items)
                    if (values_equal(e.first, k)) { e.second = x; return; }
                d->items.emplace_back(k, x);
            };
            for (const auto& p : a.pos) {
                if (p.kind != VK::Dict) ev.fail(DiagKind::TypeMismatch, a.span, {"dict.update expects a dict, got " + type_name(p)});
                for (const auto& [k, x] : p.as<DictObj>()->items) put(k, x);
            }
            for (const auto& [k, x] : a.kw) put(Value::str(k), x);
            return Value::none();
        });
    if (name == "copy") return method("dict.copy", [d](Evaluator&, CallArgs&) { return Value::make(VK::Dict, std::make_shared<DictObj>(*d)); });
    return std::nullopt;
}

}  // namespace tp::eval
