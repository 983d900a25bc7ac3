; ModuleID = '__compute_module___compute_module_wrapped_convert.1'
source_filename = "__compute_module___compute_module_wrapped_convert.1"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind
define noalias noundef ptr @wrapped_convert.1(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %8 = load ptr, ptr %7, align 8
  %9 = load i64, ptr %8, align 4, !invariant.load !3
  %.not.not = icmp slt i64 %9, 1
  br i1 %.not.not, label %.lr.ph, label %._crit_edge

.lr.ph:                                           ; preds = %1, %.lr.ph
  %10 = phi i64 [ %41, %.lr.ph ], [ 0, %1 ]
  %savedstack = tail call ptr @llvm.stacksave.p0()
  %.idx3 = shl nuw nsw i64 %10, 6
  %11 = getelementptr i8, ptr %4, i64 %.idx3
  %.sroa.0.0.copyload = load <8 x i16>, ptr %11, align 1
  %.sroa.4.0..sroa_idx = getelementptr inbounds nuw i8, ptr %11, i64 16
  %.sroa.4.0.copyload = load <8 x i16>, ptr %.sroa.4.0..sroa_idx, align 1
  %.sroa.5.0..sroa_idx = getelementptr inbounds nuw i8, ptr %11, i64 32
  %.sroa.5.0.copyload = load <8 x i16>, ptr %.sroa.5.0..sroa_idx, align 1
  %.sroa.6.0..sroa_idx = getelementptr inbounds nuw i8, ptr %11, i64 48
  %.sroa.6.0.copyload = load <8 x i16>, ptr %.sroa.6.0..sroa_idx, align 1
  %12 = alloca [32 x float], align 64
  %13 = zext <8 x i16> %.sroa.0.0.copyload to <8 x i32>
  %14 = shl nuw <8 x i32> %13, splat (i32 16)
  store <8 x i32> %14, ptr %12, align 64
  %15 = zext <8 x i16> %.sroa.4.0.copyload to <8 x i32>
  %16 = shl nuw <8 x i32> %15, splat (i32 16)
  %17 = getelementptr inbounds nuw i8, ptr %12, i64 32
  store <8 x i32> %16, ptr %17, align 32
  %18 = zext <8 x i16> %.sroa.5.0.copyload to <8 x i32>
  %19 = shl nuw <8 x i32> %18, splat (i32 16)
  %20 = getelementptr inbounds nuw i8, ptr %12, i64 64
  store <8 x i32> %19, ptr %20, align 64
  %21 = zext <8 x i16> %.sroa.6.0.copyload to <8 x i32>
  %22 = shl nuw <8 x i32> %21, splat (i32 16)
  %23 = getelementptr inbounds nuw i8, ptr %12, i64 96
  store <8 x i32> %22, ptr %23, align 32
  %.idx7 = shl nuw nsw i64 %10, 7
  %24 = getelementptr i8, ptr %6, i64 %.idx7
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(128) %24, ptr noundef nonnull align 64 dereferenceable(128) %12, i64 128, i1 false)
  call void @llvm.stackrestore.p0(ptr %savedstack)
  %savedstack.1 = tail call ptr @llvm.stacksave.p0()
  %.idx3.1 = shl nuw nsw i64 %10, 6
  %25 = getelementptr i8, ptr %4, i64 %.idx3.1
  %26 = getelementptr i8, ptr %25, i64 64
  %.sroa.0.0.copyload.1 = load <8 x i16>, ptr %26, align 1
  %.sroa.4.0..sroa_idx.1 = getelementptr i8, ptr %25, i64 80
  %.sroa.4.0.copyload.1 = load <8 x i16>, ptr %.sroa.4.0..sroa_idx.1, align 1
  %.sroa.5.0..sroa_idx.1 = getelementptr i8, ptr %25, i64 96
  %.sroa.5.0.copyload.1 = load <8 x i16>, ptr %.sroa.5.0..sroa_idx.1, align 1
  %.sroa.6.0..sroa_idx.1 = getelementptr i8, ptr %25, i64 112
  %.sroa.6.0.copyload.1 = load <8 x i16>, ptr %.sroa.6.0..sroa_idx.1, align 1
  %27 = alloca [32 x float], align 64
  %28 = zext <8 x i16> %.sroa.0.0.copyload.1 to <8 x i32>
  %29 = shl nuw <8 x i32> %28, splat (i32 16)
  store <8 x i32> %29, ptr %27, align 64
  %30 = zext <8 x i16> %.sroa.4.0.copyload.1 to <8 x i32>
  %31 = shl nuw <8 x i32> %30, splat (i32 16)
  %32 = getelementptr inbounds nuw i8, ptr %27, i64 32
  store <8 x i32> %31, ptr %32, align 32
  %33 = zext <8 x i16> %.sroa.5.0.copyload.1 to <8 x i32>
  %34 = shl nuw <8 x i32> %33, splat (i32 16)
  %35 = getelementptr inbounds nuw i8, ptr %27, i64 64
  store <8 x i32> %34, ptr %35, align 64
  %36 = zext <8 x i16> %.sroa.6.0.copyload.1 to <8 x i32>
  %37 = shl nuw <8 x i32> %36, splat (i32 16)
  %38 = getelementptr inbounds nuw i8, ptr %27, i64 96
  store <8 x i32> %37, ptr %38, align 32
  %.idx7.1 = shl nuw nsw i64 %10, 7
  %39 = getelementptr i8, ptr %6, i64 %.idx7.1
  %40 = getelementptr i8, ptr %39, i64 128
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(128) %40, ptr noundef nonnull align 64 dereferenceable(128) %27, i64 128, i1 false)
  call void @llvm.stackrestore.p0(ptr %savedstack.1)
  %41 = add nuw nsw i64 %10, 2
  %exitcond.not.1 = icmp eq i64 %41, 128
  br i1 %exitcond.not.1, label %._crit_edge, label %.lr.ph

._crit_edge:                                      ; preds = %.lr.ph, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare ptr @llvm.stacksave.p0() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare void @llvm.stackrestore.p0(ptr) #2

attributes #0 = { nofree norecurse nosync nounwind }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 5}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
