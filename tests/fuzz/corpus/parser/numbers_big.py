x = 0x$(printf "f" {1..200}) + 1$(printf "0" {1..300})
