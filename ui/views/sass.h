// SASS for the SASS view: runs `nvdisasm -g` on the cubin where nvdisasm exists (PATH,
// $CUDA_HOME/bin, /usr/local/cuda/bin), else returns a line saying why there is none.
#pragma once

#include <QString>
#include <cstdint>
#include <vector>

#include "tileplay/compiler.h"

namespace tpui {

struct SassOutput {
    bool ok = false;
    QString text;  // the disassembly, or the reason there is none
    tp::LineMap lines;
};

QString find_nvdisasm();
SassOutput disassemble(const std::vector<uint8_t>& cubin, const QString& dsl_path);

}  // namespace tpui
