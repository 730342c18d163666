// A small CUDA job for tests/gpu/run.sh: allocations, copies both ways, a memset, kernels on two
// streams, a synchronisation. Prints "ok" when the sums are right.
#include <cstdio>
#include <vector>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 20;
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n);
  float *da, *db, *dc;
  cudaMalloc(&da, n * sizeof(float));
  cudaMalloc(&db, n * sizeof(float));
  cudaMalloc(&dc, n * sizeof(float));
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaMemcpyAsync(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice, s1);
  cudaMemcpyAsync(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice, s1);
  cudaMemsetAsync(dc, 0, n * sizeof(float), s2);
  cudaDeviceSynchronize();
  for (int i = 0; i < 10; ++i)
    vector_add<<<(n + 255) / 256, 256, 0, i % 2 ? s2 : s1>>>(da, db, dc, n);
  cudaDeviceSynchronize();
  cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  bool ok = c[0] == 3.0f && c[n - 1] == 3.0f;
  std::printf("%s\n", ok ? "ok" : "wrong sums");
  return ok ? 0 : 1;
}
