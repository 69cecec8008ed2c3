use proc_macro::TokenStream; #[proc_macro] pub fn layout(t: TokenStream) -> TokenStream { t }
