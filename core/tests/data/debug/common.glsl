uint scale(uint x) {
    uint y = x * 3u;
    return y + 1u;
}
