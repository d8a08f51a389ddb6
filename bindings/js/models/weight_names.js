// Where a weight kind's values are in a checkpoint: the one set of name helpers of the family
// registry (architectures.js), for Hugging Face tensor names and GGUF's alike. load_model.js
// reads each as
//   name          the tensor (after the model's prefix unless unprefixed)
//   layout        'linear': nn.Linear's [out, in] (read transposed); 'conv1d': GPT-2's Conv1D
//                 [in, out]; 'plain': as stored (a vector, or the embeddings' rows)
//   alternatives  other names the same values may have (older checkpoints)
//   part          [offset, total]: a fused tensor's output features (out rows of nn.Linear,
//                 columns of Conv1D, entries of a bias) this entry takes, from offset of total
//   tied          the untied tensor that replaces this one when the checkpoint has it

export const linear = (name) => ({ name, layout: 'linear' });
export const linearPart = (name, part) => ({ name, layout: 'linear', part });
export const conv1d = (name, part) => ({ name, layout: 'conv1d', part });
export const plain = (name, alternatives = [], part) => ({ name, layout: 'plain', alternatives, part });
/** A LayerNorm's weight or bias, also under TF-era names (gamma, beta). */
export const normOf = (base, which) => plain(`${base}.${which}`, [`${base}.${which === 'weight' ? 'gamma' : 'beta'}`]);
