// A wave reduction written in HLSL, compiled with line and source debug information
// (NonSemantic.Shader.DebugInfo.100, as DXC's -fspv-debug=vulkan-with-source and Slang emit).
RWStructuredBuffer<uint> data : register(u0);

[numthreads(32, 1, 1)]
void CSMain(uint3 tid : SV_GroupThreadID) {
    uint v = data[tid.x];
    uint total = WaveActiveSum(v);
    data[tid.x] = total + v;
}
