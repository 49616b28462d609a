// Parses the `# tileplay:` header of a sample and evaluates its FLOP/byte formulas.
#include "tileplay/sample_header.h"

#include <cctype>
#include <cmath>
#include <sstream>

#include "ir/dtype.h"

namespace tp {

namespace {

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r");
    size_t e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::pair<std::string, std::string>> parse_assignments(const std::string& s) {
    std::vector<std::pair<std::string, std::string>> out;
    std::istringstream is(s);
    std::string word;
    while (is >> word) {
        size_t eq = word.find('=');
        if (eq == std::string::npos || eq == 0) continue;
        out.emplace_back(word.substr(0, eq), word.substr(eq + 1));
    }
    return out;
}

// Recursive-descent evaluator for + - * / // % ** and parentheses over named values.
class FormulaParser {
public:
    FormulaParser(const std::string& s, const std::map<std::string, double>& vars) : s_(s), vars_(vars) {}
    std::optional<double> run() {
        auto v = sum();
        skip();
        if (!v || pos_ != s_.size()) return std::nullopt;
        return v;
    }

private:
    void skip() { while (pos_ < s_.size() && isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_; }
    bool eat(const char* tok) {
        skip();
        size_t n = std::char_traits<char>::length(tok);
        if (s_.compare(pos_, n, tok) != 0) return false;
        // `*` must not match the first half of `**`, `/` not the first half of `//`
        if (n == 1 && pos_ + 1 < s_.size() && s_[pos_ + 1] == tok[0] && (tok[0] == '*' || tok[0] == '/')) return false;
        pos_ += n;
        return true;
    }
    std::optional<double> sum() {
        auto v = product();
        while (v) {
            if (eat("+")) { auto r = product(); if (!r) return std::nullopt; *v += *r; }
            else if (eat("-")) { auto r = product(); if (!r) return std::nullopt; *v -= *r; }
            else break;
        }
        return v;
    }
    std::optional<double> product() {
        auto v = unary();
        while (v) {
            if (eat("//")) { auto r = unary(); if (!r || *r == 0) return std::nullopt; *v = std::floor(*v / *r); }
            else if (eat("*")) { auto r = unary(); if (!r) return std::nullopt; *v *= *r; }
            else if (eat("/")) { auto r = unary(); if (!r || *r == 0) return std::nullopt; *v /= *r; }
            else if (eat("%")) { auto r = unary(); if (!r || *r == 0) return std::nullopt; *v = std::fmod(*v, *r); }
            else break;
        }
        return v;
    }
    std::optional<double> unary() {
        // Signs and `**` chains recurse too: the same depth budget covers them.
        if (++depth_ > kMaxDepth) return std::nullopt;
        std::optional<double> v;
        if (eat("-")) { v = unary(); if (v) *v = -*v; }
        else if (eat("+")) v = unary();
        else v = power();
        --depth_;
        return v;
    }
    std::optional<double> power() {
        auto base = atom();
        if (base && eat("**")) {
            auto e = unary();
            if (!e) return std::nullopt;
            return std::pow(*base, *e);
        }
        return base;
    }
    std::optional<double> atom() {
        skip();
        if (pos_ >= s_.size()) return std::nullopt;
        if (eat("(")) {
            // Each level recurses through unary(), whose budget bounds the depth: a header
            // formula is never deep, a hostile one could be.
            auto v = sum();
            if (!eat(")")) return std::nullopt;
            return v;
        }
        char c = s_[pos_];
        if (isdigit(static_cast<unsigned char>(c)) || c == '.') {
            size_t used = 0;
            double v = std::stod(s_.substr(pos_), &used);
            pos_ += used;
            return v;
        }
        if (isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t b = pos_;
            while (pos_ < s_.size() && (isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
            auto it = vars_.find(s_.substr(b, pos_ - b));
            if (it == vars_.end()) return std::nullopt;
            return it->second;
        }
        return std::nullopt;
    }
    static constexpr int kMaxDepth = 200;
    const std::string& s_;
    const std::map<std::string, double>& vars_;
    size_t pos_ = 0;
    int depth_ = 0;
};

}  // namespace

SampleHeader parse_sample_header(const std::string& source) {
    SampleHeader h;
    // Lines end at LF, CRLF or a lone CR, as in Python (and SourceFile).
    std::string text = source;
    for (size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) text[i] = '\n';
    std::istringstream is(text);
    std::string line;
    const std::string tag = "tileplay:";
    while (std::getline(is, line)) {
        std::string t = trim(line);
        if (t.empty() || t[0] != '#') continue;
        t = trim(t.substr(1));
        if (t.compare(0, tag.size(), tag) != 0) continue;
        t = trim(t.substr(tag.size()));
        // key is the first word; `kernel=NAME` has the value glued on
        size_t sp = t.find_first_of(" \t");
        std::string key = sp == std::string::npos ? t : t.substr(0, sp);
        std::string rest = sp == std::string::npos ? std::string() : trim(t.substr(sp));
        if (key.rfind("kernel=", 0) == 0) {
            h.kernel = key.substr(7);
        } else if (key == "kernel") {
            h.kernel = rest;
        } else if (key == "args") {
            auto a = parse_assignments(rest);
            h.args.insert(h.args.end(), a.begin(), a.end());
        } else if (key == "cpu-args") {
            auto a = parse_assignments(rest);
            h.cpu_args.insert(h.cpu_args.end(), a.begin(), a.end());
        } else if (key == "flops") {
            h.flops = rest;
        } else if (key == "bytes") {
            h.bytes = rest;
        } else if (key == "baseline") {
            h.baselines.push_back(rest);
        } else if (key == "variant") {
            size_t colon = rest.find(':');
            if (colon != std::string::npos && colon > 0)
                h.variants.push_back({trim(rest.substr(0, colon)), parse_assignments(rest.substr(colon + 1))});
        } else if (key == "lesson") {
            h.lesson = rest;
        } else if (key == "hint") {
            if (!rest.empty()) h.hints.push_back(rest);
        } else if (key == "tune") {
            for (auto& [name, values] : parse_assignments(rest)) {
                std::vector<std::string> vs;
                std::istringstream vsin(values);
                std::string v;
                while (std::getline(vsin, v, ',')) if (!v.empty()) vs.push_back(v);
                h.tune.emplace_back(name, vs);
            }
        } else {
            h.other[key] = rest;
        }
    }
    return h;
}

std::optional<double> eval_formula(const std::string& expr, const std::map<std::string, double>& vars) {
    if (trim(expr).empty()) return std::nullopt;
    try {
        return FormulaParser(expr, vars).run();
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::map<std::string, double> formula_values(const std::map<std::string, std::string>& bound) {
    std::map<std::string, double> vars;
    for (const auto& [name, text] : bound) {
        try {
            size_t used = 0;
            double v = std::stod(text, &used);
            if (used == text.size()) vars[name] = v;
            continue;
        } catch (const std::exception&) {}
        if (text == "True" || text == "False")
            vars[name] = text == "True" ? 1 : 0;
        else if (auto dt = ir::DataType::parse(text); dt && dt->bits >= 8)
            vars[name + "_bytes"] = dt->bytes();
    }
    return vars;
}

}  // namespace tp
