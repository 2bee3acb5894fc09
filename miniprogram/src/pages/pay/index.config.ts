export default definePageConfig({
  navigationBarTitleText: 'Pay',
});
