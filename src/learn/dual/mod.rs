//! The dual (kernel) form, for small corpora: the kernel perceptron and what it stands
//! on — the kernels, the Gram matrix (computed from the transposed rows, `postings`, whole
//! or a row at a time within a memory budget, `gram_rows`), the support-vector model
//! it fits, and the cost estimate it checks before allocating anything.

pub(crate) mod cost;
pub(crate) mod gram;
pub(crate) mod gram_rows;
pub(crate) mod kernel;
pub(crate) mod kernel_model;
pub(crate) mod kernel_perceptron;
pub(crate) mod postings;
#[cfg(test)]
mod primal_tests;
