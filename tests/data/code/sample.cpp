// A small matrix, for the Code tests.
#include <vector>

namespace linalg {

class Matrix {
 public:
  Matrix(int rows, int cols) : rows_(rows), cols_(cols), data_(rows * cols) {}

  double& at(int r, int c) {
    return data_[r * cols_ + c];
  }

 private:
  int rows_;
  int cols_;
  std::vector<double> data_;
};

struct Shape {
  int rows;
  int cols;
};

}  // namespace linalg

double linalg_trace(linalg::Matrix& m, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += m.at(i, i);
  }
  return sum;
}
