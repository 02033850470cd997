-- Default SKUs made from a record id starting with '_' or '-', which a SKU may not (the console's
-- variants form sent them back and was refused): prefixed with 'v', as new ones are.
UPDATE product_variants SET sku = 'v' || sku
WHERE sku !~ '^[A-Za-z0-9]'
  AND NOT EXISTS (
    SELECT 1 FROM product_variants other
    WHERE other.seller_id = product_variants.seller_id AND other.sku = 'v' || product_variants.sku
  );
