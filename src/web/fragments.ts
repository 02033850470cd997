// The shared fragments live with the frames (src/views/fragments.ts); these names stay for the
// page sections that import them here.

export { say } from '../modules/page-layout.ts';
export {
  type Amounts,
  amountRows,
  productCard,
  productImage,
  productImages,
  reviewArticle,
  reviewList,
  specifications,
  stars,
  stockLine,
} from '../views/fragments.ts';
