// .npy v1.0 encoding and decoding for HostTensor (little-endian hosts; both machines are x86-64).
#include "tensor/npy.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tp {

namespace {

void set_error(std::string* error, const std::string& msg) {
    if (error) *error = msg;
}

// Maps a numpy descriptor (without byte-order distinctions for one-byte types) to a dtype.
std::optional<ir::DataType> dtype_from_descr(std::string d) {
    using C = ir::DataType;
    if (d.size() < 3) return std::nullopt;
    char order = d[0];
    if (order == '>') return std::nullopt;  // big-endian data is not supported
    std::string kind = d.substr(1);
    if (kind == "f2") return C(C::Float, 16);
    if (kind == "f4") return C(C::Float, 32);
    if (kind == "f8") return C(C::Float, 64);
    if (kind == "i1") return C(C::Int, 8);
    if (kind == "i2") return C(C::Int, 16);
    if (kind == "i4") return C(C::Int, 32);
    if (kind == "i8") return C(C::Int, 64);
    if (kind == "u1") return C(C::UInt, 8);
    if (kind == "u2") return C(C::UInt, 16);
    if (kind == "u4") return C(C::UInt, 32);
    if (kind == "u8") return C(C::UInt, 64);
    if (kind == "b1") return C(C::Bool, 1);
    if (kind == "V2") return C(C::BFloat, 16);
    return std::nullopt;
}

// Extracts the value text of `'key':` from the header dict.
std::string dict_value(const std::string& h, const std::string& key) {
    auto k = h.find("'" + key + "'");
    if (k == std::string::npos) return {};
    auto colon = h.find(':', k);
    if (colon == std::string::npos) return {};
    size_t i = colon + 1;
    while (i < h.size() && h[i] == ' ') ++i;
    if (i >= h.size()) return {};
    if (h[i] == '\'') {
        auto e = h.find('\'', i + 1);
        return e == std::string::npos ? std::string() : h.substr(i + 1, e - i - 1);
    }
    if (h[i] == '(') {
        auto e = h.find(')', i);
        return e == std::string::npos ? std::string() : h.substr(i, e - i + 1);
    }
    size_t e = i;
    while (e < h.size() && h[e] != ',' && h[e] != '}') ++e;
    return h.substr(i, e - i);
}

}  // namespace

std::string npy_descr(ir::DataType t) {
    using C = ir::DataType;
    switch (t.code) {
        case C::Float: return t.bits == 16 ? "<f2" : t.bits == 32 ? "<f4" : t.bits == 64 ? "<f8" : "";
        case C::BFloat: return "<u2";
        case C::Float8E4M3:
        case C::Float8E5M2: return "|u1";
        case C::Int: return t.bits == 8 ? "|i1" : t.bits == 16 ? "<i2" : t.bits == 32 ? "<i4" : t.bits == 64 ? "<i8" : "";
        case C::UInt: return t.bits == 8 ? "|u1" : t.bits == 16 ? "<u2" : t.bits == 32 ? "<u4" : t.bits == 64 ? "<u8" : "";
        case C::Bool: return "|b1";
        default: return "";
    }
}

std::string encode_npy(const HostTensor& t) {
    std::ostringstream dict;
    dict << "{'descr': '" << npy_descr(t.dtype) << "', 'fortran_order': False, 'shape': (";
    for (size_t i = 0; i < t.shape.size(); ++i) dict << t.shape[i] << (t.shape.size() == 1 ? "," : i + 1 < t.shape.size() ? ", " : "");
    dict << "), }";
    std::string header = dict.str();
    // Magic (6) + version (2) + length (2) + header + '\n' padded to a multiple of 64.
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xFF);
    out += static_cast<char>((header.size() >> 8) & 0xFF);
    out += header;
    out.append(reinterpret_cast<const char*>(t.data()), t.nbytes());
    return out;
}

bool decode_npy(const std::string& b, HostTensor& out, std::string* error) {
    if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) return set_error(error, "not a .npy file (bad magic)"), false;
    int major = static_cast<unsigned char>(b[6]);
    size_t hlen, hstart;
    if (major == 1) {
        hlen = static_cast<unsigned char>(b[8]) | (static_cast<size_t>(static_cast<unsigned char>(b[9])) << 8);
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (b.size() < 12) return set_error(error, "truncated .npy header"), false;
        hlen = 0;
        for (int i = 0; i < 4; ++i) hlen |= static_cast<size_t>(static_cast<unsigned char>(b[8 + i])) << (8 * i);
        hstart = 12;
    } else {
        return set_error(error, "unsupported .npy version " + std::to_string(major)), false;
    }
    if (b.size() < hstart + hlen) return set_error(error, "truncated .npy header"), false;
    std::string h = b.substr(hstart, hlen);
    std::string descr = dict_value(h, "descr");
    if (dict_value(h, "fortran_order") == "True") return set_error(error, "fortran_order arrays are not supported; save with np.ascontiguousarray"), false;
    auto dt = dtype_from_descr(descr);
    if (!dt) return set_error(error, "unsupported .npy dtype '" + descr + "'"), false;
    std::string shape_text = dict_value(h, "shape");
    if (shape_text.size() < 2 || shape_text.front() != '(') return set_error(error, "bad shape in .npy header"), false;
    std::vector<int64_t> shape;
    std::string inner = shape_text.substr(1, shape_text.size() - 2);
    std::stringstream ss(inner);
    std::string item;
    while (std::getline(ss, item, ',')) {
        size_t p = item.find_first_not_of(' ');
        if (p == std::string::npos) continue;
        try {
            shape.push_back(std::stoll(item.substr(p)));
        } catch (...) {
            return set_error(error, "bad shape in .npy header"), false;
        }
        if (shape.back() < 0) return set_error(error, "bad shape in .npy header"), false;
    }
    // The header's size is checked against the file before anything is allocated: a 4 KB file
    // claiming 2^40 elements is refused, not answered with an 8 TB allocation.
    auto need = checked_nbytes(*dt, shape);
    if (!need) return set_error(error, "bad shape in .npy header: the element count overflows 64 bits"), false;
    size_t data_start = hstart + hlen;
    if (b.size() - data_start < static_cast<uint64_t>(*need))
        return set_error(error, "truncated .npy data: the header's shape needs " + std::to_string(*need) + " bytes, the file holds " +
                                    std::to_string(b.size() - data_start)), false;
    HostTensor t(*dt, shape);
    std::copy(b.begin() + static_cast<std::ptrdiff_t>(data_start), b.begin() + static_cast<std::ptrdiff_t>(data_start + t.nbytes()), t.bytes.begin());
    out = std::move(t);
    return true;
}

bool write_npy(const std::string& path, const HostTensor& t, std::string* error) {
    if (npy_descr(t.dtype).empty()) return set_error(error, "dtype has no .npy descriptor"), false;
    std::ofstream f(path, std::ios::binary);
    if (!f) return set_error(error, "cannot write `" + path + "`"), false;
    std::string data = encode_npy(t);
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!f) return set_error(error, "cannot write `" + path + "`"), false;
    return true;
}

bool read_npy(const std::string& path, HostTensor& out, std::string* error) {
    // A directory reads as an error deep in the stream, a fifo or /dev/zero never ends.
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        return set_error(error, "`" + path + "` is not a regular file"), false;
    std::ifstream f(path, std::ios::binary);
    if (!f) return set_error(error, "cannot open `" + path + "`"), false;
    std::ostringstream ss;
    ss << f.rdbuf();
    if (!decode_npy(ss.str(), out, error)) {
        if (error) *error = path + ": " + *error;
        return false;
    }
    return true;
}

bool load_npy_as(const std::string& path, ir::DataType want, const std::vector<int64_t>& shape, HostTensor& out, std::string* error) {
    HostTensor t;
    if (!read_npy(path, t, error)) return false;
    if (t.shape != shape) {
        HostTensor w;  // described only: the kernel's shape may be too large to allocate here
        w.dtype = want;
        w.shape = shape;
        return set_error(error, path + ": shape mismatch: file holds " + t.describe() + ", the kernel expects " + w.describe()), false;
    }
    using C = ir::DataType;
    bool raw_bf16 = want.code == C::BFloat && t.dtype.bits == 16 && (t.dtype.code == C::UInt || t.dtype.code == C::BFloat);
    bool raw_fp8 = (want.code == C::Float8E4M3 || want.code == C::Float8E5M2) && t.dtype.code == C::UInt && t.dtype.bits == 8;
    if (raw_bf16 || raw_fp8) {
        t.dtype = want;  // same bytes, reinterpreted
        out = std::move(t);
        return true;
    }
    out = t.dtype == want ? std::move(t) : t.converted(want);
    return true;
}

}  // namespace tp
