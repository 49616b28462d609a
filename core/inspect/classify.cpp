// Instruction classes over PTX and SASS text: which mnemonics are Tensor Core, async copy,
// barrier and matrix-load instructions, and static counts of a listing. The token lists are
// the ones DESIGN.md gives the code views, plus their close siblings (e.g. IMMA next to HMMA)
// so an int8 or TMA kernel is not reported as having none.
#include <cctype>
#include <sstream>

#include "tileplay/inspect.h"

namespace tp {

namespace {

struct Rule {
    const char* prefix;  // whole dotted components, e.g. "cp.async" matches "cp.async.ca.shared"
    InstrClass cls;
};

// PTX: longest-first is unnecessary because no prefix here is a prefix of another class's.
const Rule kPtxRules[] = {
    {"mma", InstrClass::TensorCore},     {"wgmma", InstrClass::TensorCore},
    {"wmma", InstrClass::TensorCore},    {"tcgen05.mma", InstrClass::TensorCore},
    {"cp.async", InstrClass::AsyncCopy}, {"cp.reduce.async.bulk", InstrClass::AsyncCopy},
    {"bar", InstrClass::Barrier},        {"barrier", InstrClass::Barrier},
    {"mbarrier", InstrClass::Barrier},   {"ldmatrix", InstrClass::MatrixLoad},
};

// SASS: matched on the first dotted component (the opcode).
const Rule kSassRules[] = {
    {"HMMA", InstrClass::TensorCore},   {"HGMMA", InstrClass::TensorCore}, {"IMMA", InstrClass::TensorCore},
    {"IGMMA", InstrClass::TensorCore},  {"QGMMA", InstrClass::TensorCore}, {"DMMA", InstrClass::TensorCore},
    {"BMMA", InstrClass::TensorCore},   {"LDGSTS", InstrClass::AsyncCopy}, {"LDGDEPBAR", InstrClass::AsyncCopy},
    {"UTMALDG", InstrClass::AsyncCopy}, {"UTMASTG", InstrClass::AsyncCopy}, {"UBLKCP", InstrClass::AsyncCopy},
    {"BAR", InstrClass::Barrier},       {"SYNCS", InstrClass::Barrier},    {"LDSM", InstrClass::MatrixLoad},
};

bool component_prefix(std::string_view mnemonic, std::string_view prefix) {
    if (mnemonic.size() < prefix.size() || mnemonic.compare(0, prefix.size(), prefix) != 0) return false;
    return mnemonic.size() == prefix.size() || mnemonic[prefix.size()] == '.';
}

// A PTX modifier that ends the "base opcode": types, shapes, state spaces, vector widths.
bool is_modifier(std::string_view c) {
    static const char* const kWords[] = {"aligned", "shared", "global", "local", "const", "param", "row", "col",
                                         "trans", "cta", "cluster", "gpu", "sys"};
    if (c.empty()) return true;
    for (const char* w : kWords)
        if (c == w || c.rfind(std::string(w) + "::", 0) == 0) return true;
    // f16, bf16, u32, s8, b64, e4m3, tf32, x4, m16n8k16, v4 ...
    size_t i = 0;
    while (i < c.size() && std::isalpha(static_cast<unsigned char>(c[i]))) ++i;
    return i > 0 && i <= 3 && i < c.size() && std::isdigit(static_cast<unsigned char>(c[i]));
}

std::string base_opcode(std::string_view m, Isa isa) {
    if (isa == Isa::Sass) return std::string(m.substr(0, m.find('.')));
    std::string out;
    size_t b = 0;
    for (int n = 0; n < 3 && b <= m.size(); ++n) {
        size_t e = m.find('.', b);
        if (e == std::string_view::npos) e = m.size();
        std::string_view c = m.substr(b, e - b);
        if (n > 0 && is_modifier(c)) break;
        out += (out.empty() ? "" : ".") + std::string(c);
        b = e + 1;
    }
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

}  // namespace

const char* instr_class_name(InstrClass c) {
    switch (c) {
        case InstrClass::TensorCore: return "tensor core";
        case InstrClass::AsyncCopy: return "async copy";
        case InstrClass::Barrier: return "barrier";
        case InstrClass::MatrixLoad: return "matrix load";
    }
    return "?";
}

const char* instr_class_key(InstrClass c) {
    switch (c) {
        case InstrClass::TensorCore: return "tensor_core";
        case InstrClass::AsyncCopy: return "async_copy";
        case InstrClass::Barrier: return "barrier";
        case InstrClass::MatrixLoad: return "matrix_load";
    }
    return "?";
}

std::optional<InstrClass> classify_mnemonic(std::string_view mnemonic, Isa isa) {
    if (isa == Isa::Ptx) {
        for (const Rule& r : kPtxRules)
            if (component_prefix(mnemonic, r.prefix)) return r.cls;
        return std::nullopt;
    }
    std::string_view op = mnemonic.substr(0, mnemonic.find('.'));
    for (const Rule& r : kSassRules)
        if (op == r.prefix) return r.cls;
    return std::nullopt;
}

std::string instruction_mnemonic(std::string_view line, Isa isa) {
    std::string_view s = trim(line);
    if (isa == Isa::Sass) {
        // "/*0040*/  @!P0 HMMA.16816.F32 R4, R8, R12, R4 ;  /* 0x... */": drop the address.
        if (s.rfind("/*", 0) == 0) {
            size_t e = s.find("*/");
            if (e == std::string_view::npos) return {};
            s = trim(s.substr(e + 2));
        }
        if (!s.empty() && s.front() == '{') s = trim(s.substr(1));  // dual-issue group
    } else {
        // A label sharing the line: "$L__BB0_2: mov.u32 ...".
        size_t colon = s.find(':');
        if (colon != std::string_view::npos && s.find_first_of(" \t;,[") > colon && colon + 1 < s.size() &&
            s[colon + 1] != ':')
            s = trim(s.substr(colon + 1));
    }
    if (s.empty() || s.rfind("//", 0) == 0 || s.rfind("/*", 0) == 0) return {};
    if (s.front() == '@') {  // predicate guard
        size_t sp = s.find_first_of(" \t");
        if (sp == std::string_view::npos) return {};
        s = trim(s.substr(sp));
    }
    size_t end = 0;
    while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end])) && s[end] != ';' && s[end] != ',')
        ++end;
    std::string_view m = s.substr(0, end);
    if (m.empty() || m.back() == ':') return {};  // a label on its own line
    unsigned char c0 = static_cast<unsigned char>(m.front());
    if (isa == Isa::Sass ? !std::isupper(c0) : !std::islower(c0)) return {};  // directives, braces, operands
    return std::string(m);
}

InstrCounts count_instructions(const std::string& text, Isa isa) {
    InstrCounts c;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::string m = instruction_mnemonic(line, isa);
        if (m.empty()) continue;
        ++c.instructions;
        if (auto cls = classify_mnemonic(m, isa)) {
            int i = static_cast<int>(*cls);
            ++c.by_class[i];
            ++c.opcodes[i][base_opcode(m, isa)];
        }
    }
    return c;
}

}  // namespace tp
